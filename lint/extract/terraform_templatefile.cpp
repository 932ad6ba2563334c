// The values Terraform's templatefile() gives a JSON template's placeholders. A state machine kept
// as `templates/flow.tpl` with `"MaxAttempts": ${MAX_ATTEMPTS}` is read with the number the module
// passes, `templatefile("${path.module}/templates/flow.tpl", { MAX_ATTEMPTS = 2 })`, instead of an
// unknown (developer.hashicorp.com/terraform/language/functions/templatefile: the second argument
// is the map of the template's variables; `${name}` renders the value).
//
// Only literals are taken (a number, `true`/`false`, or a string holding one: templatefile renders
// `"2"` as 2). The callers looked at are the `.tf` files beside the template and one directory up
// (a `templates/` folder beside the module), at most kMaxCallerFiles of each, each read as
// io::readSibling reads (no links, no FIFOs, size-limited). A variable that two calls give different
// values, or any call gives as an expression (`var.retries`), stays unknown.
#include <cctype>
#include <map>
#include <optional>

#include "lint/extract/extractors.h"
#include "lint/io/posix.h"
#include "lint/yaml/templates.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Path.h>

namespace retrylint {
namespace {

constexpr size_t kMaxCallerFiles = 64;
constexpr size_t kMaxCallerBytes = 1 << 20;

using llvm::StringRef;
namespace path = llvm::sys::path;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool isIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Skips blanks and comments (`#`, `//`, `/* */`) from `i`.
size_t skipBlank(StringRef t, size_t i) {
  while (i < t.size()) {
    if (isSpace(t[i])) ++i;
    else if (t[i] == '#' || t.substr(i).startswith("//")) i = std::min(t.size(), t.find('\n', i));
    else if (t.substr(i).startswith("/*")) i = std::min(t.size(), t.find("*/", i + 2) + 2);
    else break;
  }
  return i;
}

// The end of the HCL string starting at the quote `t[i]` (one past its closing quote).
size_t stringEnd(StringRef t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') ++i;
    else if (t[i] == '"') return i + 1;
    else if (t[i] == '\n') return i; // unterminated: Terraform refuses it
  }
  return t.size();
}

// One past the expression starting at `i`: up to a `,`, a newline, a comment or a closing bracket
// outside the brackets and strings it opens.
size_t expressionEnd(StringRef t, size_t i) {
  int depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') { i = stringEnd(t, i); continue; }
    if (c == '#' || t.substr(i).startswith("//")) { // a comment runs to the line's end
      if (depth == 0) return i;
      i = std::min(t.size(), t.find('\n', i));
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return i;
      --depth;
    } else if ((c == ',' || c == '\n') && depth == 0) return i;
    ++i;
  }
  return i;
}

// A JSON number or boolean, as templatefile would render it into the JSON.
bool isJsonScalar(StringRef v) {
  if (v == "true" || v == "false") return true;
  double d;
  return !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-') && !v.getAsDouble(d);
}

using Values = std::map<std::string, std::optional<std::string>>; // nullopt: not one literal

// The variables map of the call whose `{` is at `i`: literal values, the others nullopt; false
// when the map is not read to its end (a computed key, say), so what it gives is not known.
bool readVariables(StringRef t, size_t i, Values &out) {
  ++i;
  std::map<std::string, std::optional<std::string>> mine;
  while (true) {
    i = skipBlank(t, i);
    while (i < t.size() && t[i] == ',') i = skipBlank(t, i + 1);
    if (i >= t.size() || t[i] == '}') break;
    std::string key;
    if (t[i] == '"') {
      const size_t e = stringEnd(t, i);
      key = t.slice(i + 1, e - 1).str();
      i = e;
    } else if (isIdent(t[i])) {
      const size_t b = i;
      while (i < t.size() && isIdent(t[i])) ++i;
      key = t.slice(b, i).str();
    } else {
      return false; // `(var.key) = …` or anything else: the map is not read
    }
    i = skipBlank(t, i);
    if (i >= t.size() || (t[i] != '=' && t[i] != ':')) return false;
    i = skipBlank(t, i + 1);
    const size_t e = expressionEnd(t, i);
    StringRef v = t.slice(i, e).trim();
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"' && !v.contains("${")) v = v.drop_front().drop_back();
    mine[key] = isJsonScalar(v) ? std::optional<std::string>(v.str()) : std::nullopt;
    i = e;
  }
  for (auto &[k, v] : mine) {
    auto [it, fresh] = out.try_emplace(k, v);
    if (!fresh && it->second != v) it->second = std::nullopt;
  }
  return true;
}

// The path a templatefile() first argument names, relative to the caller's directory: the
// literal with `${path.module}/` or `./` in front dropped; "" when it is any other expression.
std::string namedTemplate(StringRef literal) {
  if (literal.contains("${")) {
    if (!literal.consume_front("${path.module}/") || literal.contains("${")) return "";
  }
  while (literal.consume_front("./")) {
  }
  return literal.str();
}

std::string normalised(StringRef p) {
  llvm::SmallString<256> s(p);
  path::remove_dots(s, /*remove_dot_dot=*/true, path::Style::posix);
  return s.str().str();
}

// The callers' names relative to the template's directory, with their texts.
std::vector<std::pair<std::string, std::string>> callers(const std::string &templatePath) {
  std::vector<std::pair<std::string, std::string>> out;
  const StringRef file = path::filename(templatePath);
  auto consider = [&](const std::string &name) {
    bool found = false;
    std::string t = io::readSibling(templatePath, name, kMaxCallerBytes, &found);
    if (found && StringRef(t).contains("templatefile") && StringRef(t).contains(file)) out.emplace_back(name, std::move(t));
  };
  for (const std::string &name : io::siblingNames(templatePath, ".tf", kMaxCallerFiles)) consider(name);
  const StringRef dir = path::parent_path(templatePath);
  if (!dir.empty())
    for (const std::string &name : io::siblingNames(dir.str(), ".tf", kMaxCallerFiles)) consider("../" + name);
  return out;
}

// Calls `f(text, i)` for each templatefile() call of a caller that names the template, `i` just past
// the comma after its first argument (or npos when the call has no second argument).
template <class F> void forEachCall(const std::string &templatePath, F f) {
  const StringRef file = path::filename(templatePath);
  // The template as a caller beside it names it, and as one a directory up does.
  const std::string beside = file.str(), above = (path::filename(path::parent_path(templatePath)) + "/" + file).str();
  for (const auto &[name, text] : callers(templatePath)) {
    const StringRef t(text);
    const std::string &self = StringRef(name).startswith("../") ? above : beside;
    for (size_t at = t.find("templatefile("); at != StringRef::npos; at = t.find("templatefile(", at + 13)) {
      size_t i = skipBlank(t, at + 13);
      if (i >= t.size() || t[i] != '"') continue;
      const size_t e = stringEnd(t, i);
      const std::string named = namedTemplate(t.slice(i + 1, e - 1));
      if (named.empty() || normalised(named) != self) continue;
      i = skipBlank(t, e);
      if (!f(t, i < t.size() && t[i] == ',' ? skipBlank(t, i + 1) : StringRef::npos)) return;
    }
  }
}

} // namespace

std::map<std::string, std::string> terraformTemplateValues(const std::string &templatePath) {
  Values all;
  bool known = true;
  forEachCall(templatePath, [&](StringRef t, size_t i) {
    if (i == StringRef::npos) return true;
    // A call whose variables are not a literal map (`merge(…)`, `local.vars`) or not read to the
    // end may give any placeholder any value: then none is known.
    known = i < t.size() && t[i] == '{' && readVariables(t, i, all);
    return known;
  });
  if (!known) return {};
  std::map<std::string, std::string> out;
  for (auto &[k, v] : all)
    if (v) out.emplace(k, std::move(*v));
  return out;
}

bool mayBeTerraformJsonTemplate(const std::string &path, std::string_view text) {
  if (yaml::isJsonTemplatePath(path)) return true;
  return path::extension(path).equals_insensitive(".json") &&
         (text.find("${") != std::string_view::npos || text.find("%{") != std::string_view::npos);
}

bool isTerraformJsonTemplate(const std::string &path, std::string_view text) {
  if (yaml::isJsonTemplatePath(path)) return true;
  if (!mayBeTerraformJsonTemplate(path, text)) return false;
  bool named = false;
  forEachCall(path, [&](StringRef, size_t) { return !(named = true); });
  return named;
}

std::string terraformTemplateInputsBesides(const std::string &templatePath) {
  std::string out;
  for (const auto &[name, t] : callers(templatePath)) out += name + '\0' + t + '\0';
  return out;
}

std::vector<std::string> terraformTemplateInputNamesBesides(const std::string &templatePath) {
  std::vector<std::string> names = io::siblingNames(templatePath, ".tf", kMaxCallerFiles);
  const StringRef dir = path::parent_path(templatePath);
  if (!dir.empty())
    for (const std::string &name : io::siblingNames(dir.str(), ".tf", kMaxCallerFiles)) names.push_back("../" + name);
  return names;
}

} // namespace retrylint
