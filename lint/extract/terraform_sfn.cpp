// Step Functions state machines in Terraform: `resource "aws_sfn_state_machine"` (or, in the older
// spelling Terraform still accepts, `resource aws_sfn_state_machine name`) whose `definition`
// is a heredoc (`<<EOF` … `EOF`, or `<<-EOF` with its common indentation removed, as Terraform reads
// them: developer.hashicorp.com/terraform/language/expressions/strings#heredoc-strings). The heredoc
// holds the Amazon States Language JSON, read by the Step Functions dialect where it stands.
// Interpolations outside JSON strings (`"MaxAttempts": ${var.retries}`) are unknown values: each is
// read as `null` padded to its length, so the JSON still parses and the columns stay.
//
// `definition = jsonencode({ … })` is an HCL object: it is written out as JSON token by token, each
// token remembering its column (below), expressions read as null. A value that is `local.NAME`,
// written in a `locals` block of the same file, is read there (findings point at the shared retrier);
// one written in another `.tf` file of the directory (Terraform's module: `locals.tf`) is read too,
// its findings pointing at the reference in the file read. `concat(local.a, local.b)` of such lists
// is their members in one list, `merge({ … }, local.states)` of objects the file writes their
// members in one object (any other argument, `var.x` or a `for`, leaves the merge unknown), and a
// key computed by an expression (`(var.name) = …`) names nothing known. Any other expression stays
// unknown, read past to its end however many lines it takes (a call, a `for`, a heredoc).
// A definition written `local.NAME`, whose local is `jsonencode({ … })`, is read where the local is.
// A value `var.NAME` (in jsonencode, or `${var.NAME}` alone in a heredoc) is the number or boolean the
// module gives it when no caller says otherwise: what `terraform.tfvars` or a `*.auto.tfvars` of the
// directory sets (Terraform loads those by itself), else the `default` of its `variable` block
// (developer.hashicorp.com/terraform/language/values/variables, "Variable definition precedence").
// Any other value (a string, an expression, no default) stays unknown.
//
// Besides `resource "aws_sfn_state_machine"`'s `definition`, a `module` block's input named for a
// definition (`definition` of terraform-aws-modules/step-functions, a repository's own
// `state_machine_definition`) is read the same way, with the module's `type = "EXPRESS"`.
//
// The resource's `type = "EXPRESS"` (registry.terraform.io aws_sfn_state_machine: `type`, STANDARD
// by default) makes it an Express workflow, whose executions end after 5 minutes (applyExpressLimit).
// Not read yet: `%{ }` template directives.
// A definition read through `templatefile("sfn.asl.json", …)` is its own file, which the Step
// Functions dialect reads as it is.
#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include "lint/extract/embedded.h"
#include "lint/extract/extractors.h"
#include "lint/io/posix.h"
#include "lint/yaml/templates.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "terraform-sfn";

// HCL identifiers (`aws_sfn_state_machine`, `max-attempts`, a heredoc's `EOT`): letters, digits,
// `_` and `-`; `.` too where a traversal is read (`local.machine.states`).
bool isHclNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }
bool isHclName(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), isHclNameChar); }
size_t hclNameEnd(std::string_view s, size_t from, bool dots = false) {
  while (from < s.size() && (isHclNameChar(s[from]) || (dots && s[from] == '.'))) ++from;
  return from;
}

// A resource, or a module given a definition, or a `data "template_file"` that renders one (its
// `StartAt` in the file).
bool holdsDefinition(std::string_view t) {
  return t.find("aws_sfn_state_machine") != std::string_view::npos ||
         ((t.find("module") != std::string_view::npos || t.find("template_file") != std::string_view::npos) &&
          t.find("StartAt") != std::string_view::npos);
}

bool recogniseText(const SourceFile &src) { return isFileKind(src.path().str(), {".tf"}) && holdsDefinition(src.text()); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// A block's labels, from the text after its keyword up to its `{`: quoted (`"aws_sfn_state_machine"
// "sfn"`) or bare identifiers (`aws_sfn_state_machine sfn`, which Terraform still accepts:
// developer.hashicorp.com/terraform/language/syntax/configuration#blocks, "block labels").
std::vector<std::string_view> blockLabels(std::string_view rest) {
  std::vector<std::string_view> labels;
  size_t i = 0;
  while (i < rest.size()) {
    const char c = rest[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '"') {
      const size_t close = rest.find('"', i + 1);
      if (close == std::string_view::npos) break;
      labels.push_back(rest.substr(i + 1, close - i - 1));
      i = close + 1;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t e = hclNameEnd(rest, i);
      labels.push_back(rest.substr(i, e - i));
      i = e;
    } else {
      break; // `{`, or anything a label cannot be
    }
  }
  return labels;
}

// What each `var.NAME` (and `var.NAME.attribute` of an object) the module does not leave to its
// callers is: a number or true/false, as written; "" for an attribute a tfvars object sets to
// something else (unknown, and not the default's).
using VarValues = std::map<std::string, std::string, std::less<>>;

// Where the `${` at `i` ends: one past its matching `}` on its line (`${join("-", [local.name,
// "task"])}`), npos when it does not end there.
size_t interpolationEnd(const std::string &t, size_t i) {
  const size_t brace = yaml::interpolationEnd(t, i, /*withinLine=*/true);
  return brace == std::string_view::npos ? std::string::npos : brace + 1;
}

// `${ … }` outside JSON strings, as `null` and blanks of the same length. Inside a JSON string an
// interpolation stays as it is written but for its own quotes and backslashes (yaml::quoteInterpolation),
// so that the string does not end there (`"Name": "${join("-", [local.name, "task"])}"`).
void maskInterpolations(std::string &t, const VarValues &vars) {
  bool inString = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (inString) {
      if (t[i] == '\\') {
        ++i;
      } else if (t[i] == '"') {
        inString = false;
      } else if (t[i] == '$' && i + 1 < t.size() && t[i + 1] == '{') {
        const size_t end = interpolationEnd(t, i);
        if (end == std::string::npos) continue;
        yaml::quoteInterpolation(t, i, end);
        i = end - 1;
      }
      continue;
    }
    if (t[i] == '"') {
      inString = true;
    } else if (t[i] == '$' && i + 1 < t.size() && t[i + 1] == '{') {
      const size_t j = interpolationEnd(t, i);
      if (j == std::string::npos || j - i < 4) continue;
      std::string known = "null";
      if (std::string_view ref = trim(std::string_view(t).substr(i + 2, j - i - 3)); ref.rfind("var.", 0) == 0)
        if (auto it = vars.find(ref.substr(4)); it != vars.end() && !it->second.empty() && it->second.size() <= j - i) known = it->second;
      // Where a member's key is due (after `{` or `,`, before a `"key"`), the interpolation writes
      // whole members or nothing (`${local.platform_version}` as `"PlatformVersion": "LATEST",` or
      // ""): it is left out, not a value.
      const size_t before = t.find_last_not_of(" \t\r\n", i == 0 ? 0 : i - 1), after = t.find_first_not_of(" \t\r\n", j);
      if (i > 0 && before != std::string::npos && (t[before] == '{' || t[before] == ',') && after != std::string::npos && t[after] == '"')
        known.clear();
      for (size_t k = i; k < j; ++k) t[k] = ' ';
      t.replace(i, known.size(), known);
      i = j - 1;
    }
  }
}


// ---- definition = jsonencode({ ... }): an HCL object, written out as JSON ----
//
// The HCL value is rewritten token by token into JSON on the same lines (keys quoted, `=` as `:`,
// the commas HCL leaves to newlines added, trailing ones dropped, comments removed); a value that is
// an expression (var.x, a function call, a reference) becomes null: unknown. Each output token
// remembers the column it came from, so positions map back exactly to the token.
// A `local.NAME` value is read where the `locals` block writes it, so its output tokens come from
// other source lines than the ones around them: each token remembers its source line too.
struct Translation {
  struct Anchor {
    int out_col, src_line, src_col; // 0-based
  };
  std::string json;
  // Per output line: the source position of each token start, by ascending output column.
  std::vector<std::vector<Anchor>> anchors;
  std::vector<int> line_source; // per output line, the source line it began on
};

// Where each `locals { NAME = value }` of the module writes its value: the file (the one read, or
// another `.tf` file of its directory), line and column, 0-based.
struct LocalAt {
  const SourceFile *file;
  int line, col;
};
using Locals = std::map<std::string, LocalAt, std::less<>>;

// A number or a boolean, as HCL writes them (a lone `-` or `.` is not one).
bool literalValue(std::string_view t) {
  return t == "true" || t == "false" ||
         (!t.empty() && std::all_of(t.begin(), t.end(), [](unsigned char d) { return std::isdigit(d) || d == '.' || d == '-'; }) &&
          std::any_of(t.begin(), t.end(), [](unsigned char d) { return std::isdigit(d); }));
}

// `NAME = <number or boolean>` with its comment cut, or nothing.
std::optional<std::pair<std::string_view, std::string_view>> literalAssignment(std::string_view v) {
  const size_t eq = v.find('=');
  if (eq == std::string_view::npos || v.substr(eq, 2) == "==") return std::nullopt;
  std::string_view name = trim(v.substr(0, eq)), value = v.substr(eq + 1);
  for (std::string_view c : {"#", "//"})
    if (size_t h = value.find(c); h != std::string_view::npos) value = value.substr(0, h);
  value = trim(value);
  if (!isHclName(name) || !literalValue(value))
    return std::nullopt;
  return std::make_pair(name, value);
}

// `NAME = {` opening an object on its own line: NAME, or nothing.
std::optional<std::string_view> objectOpening(std::string_view v) {
  const size_t eq = v.find('=');
  if (eq == std::string_view::npos || v.substr(eq, 2) == "==" || trim(v.substr(eq + 1)) != "{") return std::nullopt;
  std::string_view name = trim(v.substr(0, eq));
  if (!isHclName(name)) return std::nullopt;
  return name;
}

// The `default` of each `variable "NAME" { … }` of `text` that is a number or boolean, into `found`
// (a name already there stays: a tfvars value, or an earlier file's); of an object default
// written over lines (`default = {` … `max_concurrency = 5` … `}`), each such attribute, as
// `NAME.attribute` (what `var.NAME.attribute` reads).
void addVariableDefaults(std::string_view text, VarValues &found) {
  size_t pos = 0;
  std::string_view current;
  bool inObjectDefault = false;
  int depth = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos), v = trim(raw);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (depth == 0 && raw.rfind("variable", 0) == 0) {
      const std::vector<std::string_view> labels = blockLabels(trim(v.substr(8)));
      if (labels.size() == 1 && v.back() == '{') current = labels[0];
    } else if (depth == 1 && !current.empty() && v.rfind("default", 0) == 0) {
      if (auto a = literalAssignment(v); a && a->first == "default") found.emplace(std::string(current), std::string(a->second));
      else if (auto o = objectOpening(v); o && *o == "default") inObjectDefault = true;
    } else if (depth == 2 && inObjectDefault) {
      if (auto a = literalAssignment(v)) found.emplace(std::string(current) + "." + std::string(a->first), std::string(a->second));
    }
    for (char c : raw) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    if (depth <= 1) inObjectDefault = false;
    if (depth <= 0) depth = 0, current = {};
  }
}

// The top-level `NAME = <number or boolean>` lines of a tfvars file, into `found`, and the
// attributes of a top-level `NAME = {` object as `NAME.attribute` ("" for one not a literal).
void addTfvars(std::string_view text, VarValues &found) {
  size_t pos = 0;
  int depth = 0;
  std::string_view object; // the object assigned at top level being read
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (depth == 0) {
      object = {};
      if (auto a = literalAssignment(trim(raw))) found.emplace(std::string(a->first), std::string(a->second));
      else if (auto o = objectOpening(trim(raw))) object = *o;
    } else if (depth == 1 && !object.empty()) {
      // An object given here replaces the default's: its attributes this cannot read are unknown
      // (empty), not the default's.
      const std::string_view v = trim(raw);
      const size_t eq = v.find('=');
      if (auto a = literalAssignment(v)) found.emplace(std::string(object) + "." + std::string(a->first), std::string(a->second));
      else if (eq != std::string_view::npos && eq > 0) found.emplace(std::string(object) + "." + std::string(trim(v.substr(0, eq))), "");
    }
    for (char c : raw) depth += c == '{' || c == '[' ? 1 : c == '}' || c == ']' ? -1 : 0;
    if (depth < 0) depth = 0;
  }
}

struct HclReader {
  const SourceFile &src;
  const SourceFile *at;           // the file being read: src, or the file of a local read from elsewhere
  int line, col;                  // 0-based position in *at
  std::optional<std::pair<int, int>> pin; // while reading another file's local: the reference in src
  const Locals *locals;
  const VarValues *vars = nullptr;
  Translation out;
  bool failed = false;
  std::vector<std::string_view> expanding; // the locals being read, innermost last
  size_t outLineStart = 0;                 // where the current output line starts in out.json

  HclReader(const SourceFile &s, int l, int c, const Locals *known = nullptr) : src(s), at(&s), line(l), col(c), locals(known) {
    out.anchors.emplace_back();
    out.line_source.push_back(l);
  }

  std::string_view rest() const { return at->line(line).substr(std::min<size_t>(col, at->line(line).size())); }
  bool atEnd() const { return line >= at->lineCount(); }
  char peek() {
    skipBlank();
    return atEnd() ? '\0' : rest()[0];
  }
  void newline() {
    ++line, col = 0;
    out.json += '\n';
    outLineStart = out.json.size();
    out.anchors.emplace_back();
    out.line_source.push_back(pin ? pin->first : line);
  }
  void skipBlank() {
    while (!atEnd()) {
      std::string_view r = rest();
      size_t i = r.find_first_not_of(" \t\r");
      if (i == std::string_view::npos || r[i] == '#' || r.substr(i, 2) == "//") {
        newline();
        continue;
      }
      if (r.substr(i, 2) == "/*") {
        col += static_cast<int>(i) + 2;
        while (!atEnd() && rest().find("*/") == std::string_view::npos) newline();
        if (atEnd()) return;
        col += static_cast<int>(rest().find("*/")) + 2;
        continue;
      }
      col += static_cast<int>(i);
      return;
    }
  }
  void emit(std::string_view text, int sourceCol) {
    int outCol = static_cast<int>(out.json.size() - outLineStart);
    // Findings stay in the file read: what another file's local writes points at its reference.
    if (pin) out.anchors.back().push_back({outCol, pin->first, pin->second});
    else out.anchors.back().push_back({outCol, line, sourceCol});
    out.json += text;
  }
  // A quoted string, as written (HCL's escapes are JSON's for what definitions use).
  std::string_view stringToken() {
    std::string_view r = rest();
    size_t i = 1;
    while (i < r.size() && r[i] != '"') i += r[i] == '\\' ? 2 : 1;
    if (i >= r.size()) {
      failed = true;
      return {};
    }
    return r.substr(0, i + 1);
  }
  void value(int depth) {
    if (failed || depth > 64) return void(failed = true);
    char c = peek();
    if (c == '{') return object(depth);
    if (c == '[') return list(depth);
    std::string_view r = rest();
    if (c == '"') {
      std::string_view t = stringToken();
      emit(t, col);
      col += static_cast<int>(t.size());
      return;
    }
    if (r.rfind("merge(", 0) == 0 && mergeCall(depth)) return;
    // A number, true/false/null, or an expression: read to the end of the value at this depth.
    int nest = 0;
    size_t i = scanExpression(r, nest);
    std::string_view t = trim(r.substr(0, i));
    if (nest > 0 || t.rfind("<<", 0) == 0) {
      // An expression that goes on over the next lines (a function call, a `for`, a heredoc):
      // unknown, and read past.
      emit("null", col);
      col += static_cast<int>(i);
      if (nest > 0) skipOpen(nest);
      else skipHeredoc(t);
      return;
    }
    const bool literal = t == "null" || literalValue(t);
    if (!literal && (expandLocal(t, depth) || expandConcat(t, depth))) {
      col += static_cast<int>(i);
      return;
    }
    std::string_view known = literal ? t : std::string_view("null");
    if (!literal && vars && t.rfind("var.", 0) == 0)
      if (auto it = vars->find(t.substr(4)); it != vars->end() && !it->second.empty()) known = it->second;
    emit(known, col);
    col += static_cast<int>(i);
  }
  // How far the expression at the start of `r` goes on this line: up to a `,` or a closing bracket
  // at its own depth, or a comment; `nest` is left with the brackets still open at the line's end.
  static size_t scanExpression(std::string_view r, int &nest) {
    size_t i = 0;
    while (i < r.size()) {
      char d = r[i];
      if (d == '(' || d == '[' || d == '{') ++nest;
      else if (d == ')' || d == ']' || d == '}') {
        if (nest == 0) break;
        --nest;
      } else if (d == ',' && nest == 0) break;
      else if (d == '#' || (d == '/' && i + 1 < r.size() && r[i + 1] == '/')) break; // a comment ends the line
      else if (d == '"') {
        size_t j = i + 1;
        while (j < r.size() && r[j] != '"') j += r[j] == '\\' ? 2 : 1;
        i = j;
      }
      ++i;
    }
    return i;
  }
  // Past the rest of an expression whose `nest` brackets are still open at the end of this line.
  void skipOpen(int nest) {
    while (nest > 0 && !failed) {
      if (line + 1 >= at->lineCount()) return void(failed = true);
      newline();
      std::string_view r = rest();
      size_t i = scanExpression(r, nest);
      if (nest == 0) col = static_cast<int>(i);
    }
  }
  // Past a heredoc `<<EOF` or `<<-EOF` started on this line: up to its marker alone on a line.
  void skipHeredoc(std::string_view opener) {
    std::string_view marker = trim(opener.substr(2));
    if (!marker.empty() && marker.front() == '-') marker.remove_prefix(1);
    const std::string m(marker);
    while (!failed) {
      if (line + 1 >= at->lineCount()) return void(failed = true);
      newline();
      if (trim(rest()) == m) return void(col = static_cast<int>(at->line(line).size()));
    }
  }
  // `merge(a, b, …)` of objects the file writes (`{ … }`, or `local.NAME` whose value is one): one
  // object of their members, as Terraform merges them (developer.hashicorp.com/terraform/language/
  // functions/merge). A `var.x` or `local.x` that is not an object as written adds members the file
  // does not show; any other argument (a `for`, a call) leaves the value unknown: then false, and
  // nothing read.
  bool mergeCall(int depth) {
    const Mark m = mark();
    const int startLine = line, startCol = col;
    col += 6;
    emit("{", startCol);
    bool first = true, known = true;
    while (known && !failed) {
      char c = peek();
      if (atEnd()) break;
      if (c == ')') {
        emit("}", col++);
        return true;
      }
      if (c == ',') {
        ++col;
        continue;
      }
      if (c == '{') {
        objectMembers(depth, first);
        continue;
      }
      std::string_view r = rest();
      const size_t e = hclNameEnd(r, 0, /*dots=*/true);
      const Locals::value_type *local = readableLocal(r.substr(0, e));
      const LocalAt *w = local ? &local->second : nullptr;
      if (!w || static_cast<size_t>(w->col) >= w->file->line(w->line).size() || w->file->line(w->line)[w->col] != '{') {
        // `var.extra_states`, or a local that is no object as written (`var.sns ? { … } : {}`):
        // members the file does not show, added to those it does (which they could only replace
        // by the same names). Anything else (a call, a `for`) leaves the merge unknown.
        const std::string_view ref = r.substr(0, e);
        const size_t after = r.find_first_not_of(" \t", e);
        if ((ref.rfind("var.", 0) == 0 || ref.rfind("local.", 0) == 0) && after != std::string_view::npos && (r[after] == ',' || r[after] == ')')) {
          col += static_cast<int>(e);
          continue;
        }
        known = false;
        break;
      }
      col += static_cast<int>(e);
      within(*local, [&] { objectMembers(depth, first); });
    }
    // Unknown: back to the call, which value() reads past as an expression.
    rewind(m);
    line = startLine, col = startCol;
    return false;
  }
  // Where the output stands, to go back to.
  struct Mark {
    size_t json, lineStart, lines, anchorsOnLine;
  };
  Mark mark() const { return {out.json.size(), outLineStart, out.anchors.size(), out.anchors.back().size()}; }
  void rewind(const Mark &m) {
    out.json.resize(m.json);
    outLineStart = m.lineStart;
    out.anchors.resize(m.lines);
    out.line_source.resize(m.lines);
    out.anchors.back().resize(m.anchorsOnLine);
  }
  // `local.NAME` that a `locals` block of the file writes: its value, read where it is written (so
  // findings point at the shared retrier). A local being read already (a cycle) stays unknown.
  bool expandLocal(std::string_view t, int depth) {
    const Locals::value_type *local = readableLocal(t);
    if (!local) return false;
    within(*local, [&] { value(depth + 1); });
    return !failed;
  }
  // The local `t` names (`local.NAME`) when it can be read here: written in the module, not being
  // read already (a cycle), and within the output's bound.
  const Locals::value_type *readableLocal(std::string_view t) const {
    t = trim(t);
    if (!locals || t.rfind("local.", 0) != 0) return nullptr;
    std::string_view name = t.substr(6);
    auto it = locals->find(name);
    if (it == locals->end() || std::find(expanding.begin(), expanding.end(), name) != expanding.end()) return nullptr;
    // Locals that each use another twice double the text per level: past eight times the file's
    // size (and 256 KiB), further locals stay unknown, so the output stays bounded.
    if (out.json.size() > 8 * src.text().size() + (1u << 18)) return nullptr;
    return &*it;
  }
  // Reads at the local's value with `read`, then comes back.
  template <class Read> void within(const Locals::value_type &local, Read &&read) {
    const SourceFile *savedAt = at;
    const int savedLine = line, savedCol = col;
    const auto savedPin = pin;
    if (local.second.file != &src && !pin) pin = std::make_pair(line, col);
    expanding.push_back(local.first);
    at = local.second.file, line = local.second.line, col = local.second.col;
    read();
    expanding.pop_back();
    at = savedAt, line = savedLine, col = savedCol, pin = savedPin;
  }
  // `concat(local.a, local.b, …)` of lists the module's locals write (a shared retrier and a
  // state's own): one list of their members. Any other argument leaves the value unknown.
  bool expandConcat(std::string_view t, int depth) {
    if (!locals || t.rfind("concat(", 0) != 0 || t.back() != ')') return false;
    std::vector<const Locals::value_type *> args;
    std::string_view inner = t.substr(7, t.size() - 8);
    for (size_t b = 0; b <= inner.size();) {
      size_t e = inner.find(',', b);
      if (e == std::string_view::npos) e = inner.size();
      const Locals::value_type *local = readableLocal(inner.substr(b, e - b));
      if (!local) return false;
      const LocalAt &w = local->second;
      std::string_view v = w.file->line(w.line);
      if (static_cast<size_t>(w.col) >= v.size() || v[w.col] != '[') return false;
      args.push_back(local);
      b = e + 1;
    }
    if (args.empty()) return false;
    emit("[", col);
    bool first = true;
    for (const Locals::value_type *local : args) {
      within(*local, [&] {
        membersInto(']', first, [&](char) {
          value(depth + 1);
          return true;
        });
      });
      if (failed) return false;
    }
    emit("]", col);
    return true;
  }
  // An attribute name, quoted or not, as a JSON string; "" when there is none here.
  std::string key() {
    std::string_view r = rest();
    if (!r.empty() && r[0] == '(') {
      // A key computed by an expression, `(var.name) = …`: read past (objectMembers leaves the
      // member out).
      size_t i = 0;
      for (int nest = 0; i < r.size(); ++i) {
        if (r[i] == '"') {
          for (++i; i < r.size() && r[i] != '"'; i += r[i] == '\\' ? 2 : 1) {}
          continue;
        }
        nest += r[i] == '(' ? 1 : r[i] == ')' ? -1 : 0;
        if (nest == 0) break;
      }
      if (i >= r.size()) return "";
      col += static_cast<int>(i + 1);
      return "\"(computed)\"";
    }
    if (!r.empty() && r[0] == '"') {
      std::string_view t = stringToken();
      col += static_cast<int>(t.size());
      return std::string(t);
    }
    const size_t i = hclNameEnd(r, 0, /*dots=*/true);
    col += static_cast<int>(i);
    return i == 0 ? "" : "\"" + std::string(r.substr(0, i)) + "\"";
  }
  // The members of the object or list whose opening bracket is here, up to `close`, written into
  // the one being output (`first`: whether it has a member yet): HCL's optional and trailing commas
  // become JSON's, each member read by `member`, which returns false to leave it out.
  template <class Member> void membersInto(char close, bool &first, Member &&member) {
    ++col;
    while (!failed) {
      char c = peek();
      if (atEnd()) return void(failed = true);
      if (c == close) return void(++col);
      if (c == ',') {
        ++col;
        continue;
      }
      const Mark before = mark();
      const bool wasFirst = first;
      if (!first) out.json += ',';
      first = false;
      if (!member(c) && !failed) rewind(before), first = wasFirst;
    }
  }
  // An object or list of its own: its brackets and members.
  template <class Member> void members(char open, char close, Member &&member) {
    emit(std::string_view(&open, 1), col);
    bool first = true;
    membersInto(close, first, member);
    if (!failed) emit(std::string_view(&close, 1), col - 1);
  }
  // `[for x in xs : VALUE]` and `{for k, v in m : KEY => VALUE}` (Parallel branches made per
  // scraper, states per name): one element, or one member named "(for)", read from VALUE with the
  // iteration variables unknown (developer.hashicorp.com/terraform/language/expressions/for). An
  // `if` filter and a grouping `...` after it are read past. False, and nothing read, when the
  // bracket here opens no `for` this reads (then the caller reads it as it would have).
  bool forExpression(char open, char close, int depth) {
    const Mark m = mark();
    const int openLine = line, openCol = col;
    auto notFor = [&] {
      rewind(m);
      line = openLine, col = openCol;
      return false;
    };
    ++col;
    if (peek() != 'f' || rest().substr(0, 4) != "for ") return notFor();
    const std::string_view r = rest();
    // The `:` ending `for … in EXPR` on this line, brackets and strings passed over.
    size_t colon = std::string_view::npos;
    for (size_t j = 4, nest = 0; j < r.size(); ++j) {
      const char d = r[j];
      if (d == '"') {
        for (++j; j < r.size() && r[j] != '"'; j += r[j] == '\\' ? 2 : 1) {}
      } else if (d == '(' || d == '[' || d == '{') {
        ++nest;
      } else if ((d == ')' || d == ']' || d == '}') && nest > 0) {
        --nest;
      } else if (d == ':' && nest == 0) {
        colon = j;
        break;
      }
    }
    if (colon == std::string_view::npos) return notFor();
    col += static_cast<int>(colon) + 1;
    if (open == '{') {
      // KEY => VALUE: the key is an expression of the iteration variables.
      const std::string_view k = rest();
      const size_t arrow = k.find("=>");
      if (arrow == std::string_view::npos) return void(failed = true), true;
      emit("{", openCol);
      emit("\"(for)\"", col + static_cast<int>(k.find_first_not_of(" \t")));
      col += static_cast<int>(arrow) + 2;
      emit(":", col - 2);
    } else {
      emit("[", openCol);
    }
    value(depth + 1);
    while (!failed) {
      const char c = peek();
      if (atEnd()) return void(failed = true), true;
      if (c == close) {
        emit(std::string_view(&close, 1), col++);
        return true;
      }
      int nest = 0;
      size_t n = scanExpression(rest(), nest);
      col += static_cast<int>(std::max<size_t>(n, 1));
      if (nest > 0) skipOpen(nest);
    }
    return true;
  }
  void object(int depth) {
    if (forExpression('{', '}', depth)) return;
    bool first = true;
    emit("{", col);
    objectMembers(depth, first);
    if (!failed) emit("}", col - 1);
  }
  // The members of the object whose `{` is here, into the object being output: an object of its
  // own, or the one merge() makes. A member whose key an expression computes (`(var.name) = …`) is
  // read past and left out: whatever it holds is under a name the file does not show.
  void objectMembers(int depth, bool &first) {
    membersInto('}', first, [&](char c) {
      const int keyCol = col;
      std::string k = key();
      char sep = k.empty() || failed ? '\0' : (emit(k, keyCol), peek());
      if (sep != '=' && sep != ':') {
        failed = true;
        return false;
      }
      emit(":", col++);
      value(depth + 1);
      return c != '(';
    });
  }
  // The body of a `locals` block from its `{`: where each local's value starts, into `found`.
  void localsBlock(Locals &found) {
    members('{', '}', [&](char) {
      std::string k = key();
      char sep = peek();
      if (k.size() < 3 || failed || sep != '=') {
        failed = true;
        return false;
      }
      ++col;
      peek();
      found.emplace(k.substr(1, k.size() - 2), LocalAt{at, line, col});
      value(1);
      return true;
    });
  }
  void list(int depth) {
    if (forExpression('[', ']', depth)) return;
    members('[', ']', [&](char) {
      value(depth + 1);
      return true;
    });
  }

};

// The JSON of `jsonencode(` at (line, col), and where its tokens came from; nullopt when the
// value is not an object this reads (`{ … }`, a local holding one, a merge() of such).
std::optional<Translation> translateJsonencode(const SourceFile &src, int line, int col, const Locals &locals, const VarValues &vars) {
  HclReader r(src, line, col, &locals);
  r.vars = &vars;
  if (r.peek() == '{') {
    r.object(0);
  } else {
    // `jsonencode(local.machine)` of a local written as an object, or `jsonencode(merge(…))`.
    r.value(0);
    if (r.out.json.rfind('{', 0) != 0) return std::nullopt;
  }
  if (r.failed) return std::nullopt;
  return std::move(r.out);
}

// The JSON of a definition written `local.NAME` at (line, col), where the module's locals write
// `NAME = jsonencode({ … })`: read there, as translateJsonencode reads it in place.
std::optional<Translation> translateLocalJsonencode(const SourceFile &src, int line, int col, std::string_view ref, const Locals &locals,
                                                   const VarValues &vars) {
  HclReader r(src, line, col, &locals);
  r.vars = &vars;
  const Locals::value_type *local = r.readableLocal(ref);
  if (!local) return std::nullopt;
  const LocalAt &w = local->second;
  if (w.file->line(w.line).substr(w.col).rfind("jsonencode(", 0) != 0) return std::nullopt;
  r.within(*local, [&] {
    r.col += 11;
    if (r.peek() != '{') return void(r.failed = true);
    r.object(0);
  });
  if (r.failed) return std::nullopt;
  return std::move(r.out);
}

// The file's `locals { … }` blocks (at the top level, `locals {` opening a line), by name, added to
// `found` (a name already there stays). A block this cannot read adds nothing: its locals stay
// unknown values.
void addLocalsOf(const SourceFile &src, Locals &found) {
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view raw = src.line(l), v = trim(raw);
    if (v.rfind("locals", 0) != 0 || trim(v.substr(6)) != "{") continue;
    HclReader r(src, l, static_cast<int>(raw.find('{')));
    Locals block;
    r.localsBlock(block);
    if (!r.failed) found.merge(block);
    if (r.line > l) l = r.line;
  }
}

// The other files of a module's directory that may give what a definition names: Terraform reads the
// directory as one module, so `local.NAME` may be written in `locals.tf` and `var.NAME` declared in
// `variables.tf` and set in `terraform.tfvars` or a `*.auto.tfvars`. At most this many files of at
// most this size, and this much in all, are consulted (a module has a handful), and only for a file
// that uses a local or a variable.
constexpr size_t kMaxModuleFiles = 64;
constexpr size_t kMaxModuleFileBytes = 1 << 20;
constexpr size_t kMaxModuleBytes = 4 << 20;

bool autoTfvars(llvm::StringRef name) { return name == "terraform.tfvars" || name.endswith(".auto.tfvars"); }

std::vector<std::string> moduleFileNames(const std::string &path) {
  std::vector<std::string> names = io::siblingNames(path, ".tf", kMaxModuleFiles);
  for (std::string &n : io::siblingNames(path, ".tfvars", kMaxModuleFiles))
    if (autoTfvars(n)) names.push_back(std::move(n));
  return names;
}

std::vector<std::pair<std::string, std::string>> moduleFiles(const std::string &path, std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  const bool usesLocals = text.find("local.") != std::string_view::npos, usesVars = text.find("var.") != std::string_view::npos;
  size_t total = 0;
  for (const std::string &name : moduleFileNames(path)) {
    if (total >= kMaxModuleBytes) break;
    const bool tfvars = autoTfvars(name);
    if (tfvars && !usesVars) continue;
    bool found = false;
    std::string t = io::readSibling(path, name, std::min(kMaxModuleFileBytes, kMaxModuleBytes - total), &found);
    if (!found || !(tfvars || (usesLocals && t.find("locals") != std::string::npos) || (usesVars && t.find("variable") != std::string::npos) ||
                    t.find("aws_sfn_state_machine.") != std::string::npos))
      continue;
    total += t.size();
    out.emplace_back(name, std::move(t));
    if (total >= kMaxModuleBytes) break;
  }
  return out;
}

Span placeTranslated(const Translation &t, const FilePath &path, Span s) {
  if (!s.known() || s.line < 1 || s.line > static_cast<int>(t.anchors.size())) return s;
  const auto &a = t.anchors[s.line - 1];
  const int c0 = s.column - 1;
  int line = t.line_source[s.line - 1], source = c0;
  for (auto it = a.rbegin(); it != a.rend(); ++it)
    if (it->out_col <= c0) {
      line = it->src_line, source = it->src_col + (c0 - it->out_col);
      break;
    }
  const int width = std::max(1, s.end_line == s.line ? s.end_column - s.column : 1);
  return Span{path, line + 1, source + 1, line + 1, source + 1 + width};
}

// Where the resource starting at line `l` sets `type = "EXPRESS"` at its own level (not in a
// nested block such as `tracing`), or "": its lines while the braces it opened stay open.
std::string expressTypeOf(const SourceFile &src, int l) {
  int depth = 0;
  for (char c : src.line(l)) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  for (int k = l + 1; k < src.lineCount() && depth > 0; ++k) {
    std::string_view raw = src.line(k), v = trim(raw);
    if (depth == 1 && v.rfind("type", 0) == 0) {
      v.remove_prefix(4);
      v = trim(v);
      if (!v.empty() && v[0] == '=' && trim(v.substr(1)) == "\"EXPRESS\"") return "type = \"EXPRESS\" at line " + std::to_string(k + 1);
    }
    for (char c : raw) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  }
  return "";
}

// What starts a state machine, as the module's `.tf` files show it: when every resource that names
// `aws_sfn_state_machine.NAME` is a schedule's target (an `aws_cloudwatch_event_target` whose rule
// has a `schedule_expression`, or an `aws_scheduler_schedule`) or something that starts nothing
// (IAM, outputs, alarms, other targets' `role_arn`s aside), the schedules, for messages; else ""
// (an event pattern, an API, a function: a crowd the file may or may not show, left as not shown).
std::string scheduleOnlyStarter(const std::string &machine, const std::vector<std::pair<std::string, std::string>> &files) {
  struct Block {
    std::string type, name, file;
    std::string schedule;      // schedule_expression, as written
    bool pattern = false;      // event_pattern
    std::string rule;          // an event target's rule: aws_cloudwatch_event_rule.R
    bool starts = false;       // names the machine outside role_arn
  };
  std::vector<Block> blocks;
  const std::string ref = "aws_sfn_state_machine." + machine;
  // `aws_sfn_state_machine.NAME.arn`, or `…NAME[0].arn` of a resource with `count`.
  auto names = [&](std::string_view v) {
    for (size_t at = v.find(ref); at != std::string_view::npos; at = v.find(ref, at + 1))
      if (at + ref.size() < v.size() && (v[at + ref.size()] == '.' || v[at + ref.size()] == '[')) return true;
    return false;
  };
  for (const auto &[name, text] : files) {
    int depth = 0;
    Block *cur = nullptr;
    bool inOutput = false; // in an `output` block, or an IAM policy document: naming the machine there starts nothing
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view raw = std::string_view(text).substr(pos, nl == std::string::npos ? std::string_view::npos : nl - pos), v = trim(raw);
      pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
      if (depth == 0) {
        cur = nullptr;
        inOutput = raw.rfind("output", 0) == 0;
        if (raw.rfind("data", 0) == 0) {
          const std::vector<std::string_view> labels = blockLabels(trim(v.substr(4)));
          inOutput = !labels.empty() && labels[0] == "aws_iam_policy_document";
        }
        if (raw.rfind("resource", 0) == 0) {
          const std::vector<std::string_view> labels = blockLabels(trim(v.substr(8)));
          if (labels.size() >= 2) cur = &blocks.emplace_back(Block{std::string(labels[0]), std::string(labels[1]), name});
        } else if (!inOutput && names(raw)) {
          return ""; // a module call, a local: who knows what starts it
        }
      } else if (!cur) {
        if (!inOutput && names(v)) return ""; // inside a module call, a local, a data source
      } else {
        const size_t eq = v.find('=');
        const std::string_view key = eq == std::string_view::npos ? std::string_view() : trim(v.substr(0, eq));
        const std::string_view value = eq == std::string_view::npos ? std::string_view() : trim(v.substr(eq + 1));
        if (key == "schedule_expression") cur->schedule = std::string(value);
        else if (key == "event_pattern") cur->pattern = true;
        else if (key == "rule") cur->rule = std::string(value);
        // A role's or a policy's resource, or the caller a function permits (`source_arn` of an
        // aws_lambda_permission: the machine invokes the function), starts nothing.
        if (names(v) && key != "role_arn" && key != "resources" && key != "Resource" && key != "source_arn") cur->starts = true;
      }
      for (char c : raw) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth < 0) depth = 0;
    }
  }
  std::vector<std::string> schedules;
  for (const Block &b : blocks) {
    if (!b.starts || b.type.rfind("aws_iam_", 0) == 0 || b.type == "aws_cloudwatch_metric_alarm" || b.type == "aws_sfn_alias") continue;
    if (b.type == "aws_scheduler_schedule" && !b.schedule.empty()) {
      schedules.push_back("aws_scheduler_schedule." + b.name + " (" + b.schedule + ") in " + b.file);
      continue;
    }
    if (b.type != "aws_cloudwatch_event_target") return "";
    std::string_view r = b.rule; // `aws_cloudwatch_event_rule.R.name`, or Terraform 0.11's `"${…}"`
    if (r.rfind("\"${", 0) == 0 && r.size() > 5 && r.substr(r.size() - 2) == "}\"") r = r.substr(3, r.size() - 5);
    if (r.rfind("aws_cloudwatch_event_rule.", 0) != 0) return "";
    r.remove_prefix(26);
    r = r.substr(0, r.find_first_of(".["));
    auto rule = std::find_if(blocks.begin(), blocks.end(), [&](const Block &x) { return x.type == "aws_cloudwatch_event_rule" && x.name == r; });
    if (rule == blocks.end() || rule->schedule.empty() || rule->pattern) return "";
    schedules.push_back("aws_cloudwatch_event_rule." + rule->name + " (" + rule->schedule + ") in " + rule->file);
  }
  if (schedules.empty()) return "";
  std::string s = schedules.front();
  for (size_t i = 1; i < schedules.size(); ++i) s += (i + 1 == schedules.size() ? " and " : ", ") + schedules[i];
  return s;
}

// A heredoc's text: the lines after its opening one up to its marker alone on a line (`first`,
// `last` the marker's line), with `<<-`'s smallest indentation (`strip`) taken off each.
struct Heredoc {
  int first, last;
  size_t strip;
  std::string text;
};
// The heredoc whose `<<` on line `l` is followed by `opener` (`EOF`, `-EOT`); nullopt when that is
// no marker, or, with `unterminated` set, when the marker never comes.
std::optional<Heredoc> heredocAt(const SourceFile &src, int l, std::string_view opener, bool &unterminated) {
  std::string_view marker = opener;
  const bool indented = !marker.empty() && marker.front() == '-';
  if (indented) marker.remove_prefix(1);
  marker = trim(marker);
  if (!marker.empty() && marker.back() == '\r') marker.remove_suffix(1);
  if (!isHclName(marker)) return std::nullopt;
  Heredoc h{l + 1, l + 1, 0, {}};
  while (h.last < src.lineCount() && trim(src.line(h.last)) != marker) ++h.last;
  if (h.last >= src.lineCount()) {
    unterminated = true;
    return std::nullopt;
  }
  if (indented) {
    h.strip = std::string::npos;
    for (int k = h.first; k < h.last; ++k) {
      std::string_view t = src.line(k);
      if (trim(t).empty()) continue;
      h.strip = std::min(h.strip, t.find_first_not_of(" \t"));
    }
    if (h.strip == std::string::npos) h.strip = 0;
  }
  for (int k = h.first; k < h.last; ++k) {
    std::string_view t = src.line(k);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    h.text += std::string(t.size() > h.strip ? t.substr(h.strip) : std::string_view()) + "\n";
  }
  return h;
}

void extractText(const SourceFile &src, ExtractContext &cx) {
  std::optional<Locals> locals; // read at the first definition that may name them
  VarValues vars;
  std::deque<SourceFile> others; // the module's other files that write locals or variables, while they are read
  auto readLocals = [&] {
    locals.emplace();
    addLocalsOf(src, *locals); // the file's own first
    std::vector<std::pair<std::string, std::string>> files = moduleFiles(src.path().str(), src.text());
    for (const auto &[name, text] : files) // what the directory's tfvars set wins over any default
      if (autoTfvars(name)) addTfvars(text, vars);
    addVariableDefaults(src.text(), vars);
    for (auto &[name, text] : files) {
      if (autoTfvars(name)) continue;
      addVariableDefaults(text, vars);
      llvm::SmallString<256> p(llvm::sys::path::parent_path(src.path().str()));
      llvm::sys::path::append(p, name);
      addLocalsOf(others.emplace_back(p.str().str(), std::move(text)), *locals);
    }
  };
  // The block being read: an aws_sfn_state_machine resource, or a module given a definition (such
  // as terraform-aws-modules/step-functions' `definition`, or a module of the repository's own
  // taking `state_machine_definition`), or a `data "template_file"` whose heredoc `template` is
  // one (Terraform 0.11's way: `definition = data.template_file.NAME.rendered`); "" outside one.
  std::string resource;
  bool module = false, templateFile = false;
  std::string express;  // where it is made an Express workflow, or ""
  // The definition's policies are an Express workflow's when the resource says so.
  std::optional<std::vector<std::pair<std::string, std::string>>> starterFiles; // the module's files that name a machine
  auto embed = [&](auto &&read) {
    const size_t from = cx.model.policies.size();
    read();
    if (!express.empty())
      for (size_t i = from; i < cx.model.policies.size(); ++i)
        if (cx.model.policies[i].format == "aws-step-functions") applyExpressLimit(cx.model.policies[i], express);
    if (module || templateFile || from == cx.model.policies.size()) return;
    if (!starterFiles) {
      starterFiles.emplace();
      starterFiles->emplace_back(std::string(llvm::sys::path::filename(src.path().str())), std::string(src.text()));
      for (auto &f : moduleFiles(src.path().str(), src.text()))
        if (f.second.find("aws_sfn_state_machine.") != std::string::npos) starterFiles->push_back(std::move(f));
    }
    const std::string schedules = scheduleOnlyStarter(resource, *starterFiles);
    if (schedules.empty()) return;
    // As for a SAM or CloudFormation template whose only events are schedules (crowdFrom).
    for (size_t i = from; i < cx.model.policies.size(); ++i) {
      RetryPolicy &p = cx.model.policies[i];
      if (p.format != "aws-step-functions" || p.crowd != Crowd::NotShown) continue;
      p.crowd = Crowd::Alone;
      p.crowd_why = "only " + schedules + " starts it: " + std::string(kCrowdAloneTail);
    }
  };
  // A jsonencode() definition written out as JSON, its findings placed at the HCL tokens.
  auto embedTranslation = [&](const std::optional<Translation> &t, const std::string &label, const std::string &anchor) {
    if (!t) return;
    embed([&] {
      extractEmbedded(cx, t->json, /*json=*/true, [&](Span s) { return placeTranslated(*t, src.path(), s); }, label, anchor);
    });
  };
  // A heredoc definition, read as JSON where it stands, its interpolations unknown.
  auto embedHeredoc = [&](Heredoc &h, const std::string &label, const std::string &anchor) {
    maskInterpolations(h.text, vars);
    embed([&] { extractEmbedded(cx, h.text, /*json=*/true, h.first, static_cast<int>(h.strip), label, anchor); });
  };
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view line = trim(src.line(l));
    if (src.line(l).rfind("module", 0) == 0 && line.size() > 7 && (line[6] == ' ' || line[6] == '"')) {
      const std::vector<std::string_view> labels = blockLabels(line.substr(6));
      resource = labels.empty() ? "(unnamed)" : std::string(labels[0]);
      module = true;
      templateFile = false;
      express = expressTypeOf(src, l);
      continue;
    }
    if (src.line(l).rfind("data", 0) == 0 && line.size() > 5 && (line[4] == ' ' || line[4] == '\t' || line[4] == '"')) {
      const std::vector<std::string_view> labels = blockLabels(line.substr(4));
      resource.clear();
      module = false;
      express.clear();
      templateFile = labels.size() > 1 && labels[0] == "template_file";
      if (templateFile) resource = std::string(labels[1]);
      continue;
    }
    for (const char *top : {"locals", "output", "variable", "terraform", "provider"})
      if (src.line(l).rfind(top, 0) == 0) resource.clear();
    if (line.rfind("resource", 0) == 0 && line.size() > 9 && (line[8] == ' ' || line[8] == '\t' || line[8] == '"')) {
      resource.clear();
      module = templateFile = false;
      express.clear();
      const std::vector<std::string_view> labels = blockLabels(line.substr(8));
      if (!labels.empty() && labels[0] == "aws_sfn_state_machine") {
        resource = labels.size() > 1 ? std::string(labels[1]) : "(unnamed)";
        express = expressTypeOf(src, l);
      }
      continue;
    }
    if (resource.empty()) continue;
    size_t eq = line.find('='), hd = line.find("<<");
    if (eq == std::string_view::npos) continue;
    // The attribute: `definition` of the resource; for a module, any input named for a definition.
    const std::string_view attribute = trim(line.substr(0, eq));
    if (templateFile ? attribute != "template"
        : module     ? attribute.find("definition") == std::string_view::npos || !isHclName(attribute)
                     : attribute != "definition")
      continue;
    const std::string_view kind = templateFile ? "data.template_file" : module ? "module" : "aws_sfn_state_machine";
    const std::string label = std::string(kind) + "." + resource + " " + std::string(attribute);
    const std::string anchor = "terraform/" + std::string(kind) + "/" + resource;
    if (size_t je = line.find("jsonencode("); je != std::string_view::npos && je > eq) {
      std::string_view raw = src.line(l);
      const int at = static_cast<int>(raw.find("jsonencode(") + 11);
      if (!locals) readLocals();
      embedTranslation(translateJsonencode(src, l, at, *locals, vars), label, anchor);
      continue;
    }
    if (std::string_view v = trim(line.substr(eq + 1)); v.rfind("local.", 0) == 0) {
      // A definition the module's locals write (`definition = local.machine`).
      v = v.substr(0, hclNameEnd(v, 6));
      if (!locals) readLocals();
      std::string_view raw = src.line(l);
      const int at = static_cast<int>(raw.find("local.", raw.find('=')));
      if (std::optional<Translation> t = translateLocalJsonencode(src, l, at, v, *locals, vars)) {
        embedTranslation(t, label, anchor);
      } else if (auto w = locals->find(v.substr(6)); w != locals->end() && w->second.file == &src) {
        // A local holding the definition as a heredoc (`machine = <<EOF` … `EOF`), in this file.
        std::string_view value = src.line(w->second.line).substr(std::min<size_t>(w->second.col, src.line(w->second.line).size()));
        bool unterminated = false;
        if (value.rfind("<<", 0) == 0)
          if (std::optional<Heredoc> h = heredocAt(src, w->second.line, value.substr(2), unterminated)) embedHeredoc(*h, label, anchor);
      }
      continue;
    }
    if (hd == std::string_view::npos || hd < eq) continue;
    bool unterminated = false;
    std::optional<Heredoc> h = heredocAt(src, l, line.substr(hd + 2), unterminated);
    if (unterminated) return; // no end: Terraform refuses the file; nothing to place
    if (!h) continue;
    if (templateFile && h->text.find("\"StartAt\"") == std::string::npos) { // a template of something else
      l = h->last;
      continue;
    }
    if (!locals) readLocals();
    embedHeredoc(*h, label, anchor);
    l = h->last;
  }
}

} // namespace

std::string terraformInputsBesides(const std::string &path, std::string_view text) {
  // Only what extractText reads: the module's locals and variables, for a file holding a definition.
  if (!llvm::StringRef(path).endswith(".tf") || !holdsDefinition(text)) return {};
  std::string out;
  for (const auto &[name, t] : moduleFiles(path, text)) out += name + '\0' + t + '\0';
  return out;
}

std::vector<std::string> terraformInputNamesBesides(const std::string &path) {
  if (!llvm::StringRef(path).endswith(".tf")) return {};
  return moduleFileNames(path);
}

namespace {
const Extractor &terraformSfnExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recogniseText = recogniseText,
      .extractText = extractText,
      .priority = 150,
      .file_kinds = {".tf"},
  };
  return e;
}
const ExtractorRegistration registered(&terraformSfnExtractor);
} // namespace

} // namespace retrylint
