#include "lint/extract/yaml_util.h"

#include <llvm/ADT/StringRef.h>
#include "lint/model/status_codes.h"
#include "lint/yaml/templates.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace retrylint {

std::string lower(std::string_view s) { return llvm::StringRef(s.data(), s.size()).lower(); }

Span ExtractContext::span(const yaml::Node &n) const {
  const yaml::Mark m = n.Mark();
  if (m.is_null()) return Span{src.path(), 0, 0, 0, 0};
  if (n.IsScalar()) return src.scalarSpan(m.line, m.column, n.Scalar());
  return Span{src.path(), m.line + 1, m.column + 1, m.line + 1, m.column + 2};
}

Span ExtractContext::keySpan(const yaml::Node &map, std::string_view key) const {
  if (map.IsMap()) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) return span(it->first);
    }
  }
  return span(map);
}

Span ExtractContext::tokenSpan(const yaml::Node &scalar, size_t offset, size_t length) const {
  const yaml::Mark m = scalar.Mark();
  if (m.is_null()) return Span{src.path(), 0, 0, 0, 0};
  return src.tokenSpan(m.line, m.column, offset, length);
}

bool ExtractContext::templatedAt(const Span &where) const {
  if (!(where.path.empty() || where.path == src.path()) || where.line <= 0 || where.line > src.lineCount()) return false;
  // From the value's start to the end of the line or a comment: a span may cover only the first
  // character of a masked scalar.
  std::string_view line = src.line(where.line - 1);
  size_t b = where.column > 0 ? static_cast<size_t>(where.column - 1) : 0;
  std::string_view value = b < line.size() ? line.substr(b) : std::string_view();
  return yaml::hasTemplateMarkers(value.substr(0, value.find(" #")));
}

void ExtractContext::problem(Span where, std::string message, std::string anchor, std::optional<Fix> fix) {
  if (templatedAt(where)) return; // an unknown value, never an invalid one
  model.problems.push_back(ConfigProblem{std::move(where), std::move(message), std::move(anchor), std::move(fix)});
}

void ExtractContext::error(const TypeError &e) {
  // A value written as a template expression (`attempts: {{ .Values.retries }}`) is unknown, not
  // of the wrong kind: the rendered file will say what it is.
  if ((e.where.path.empty() || e.where.path == src.path()) && e.where.line > 0 && e.where.line <= src.lineCount() &&
      yaml::hasTemplateMarkers(src.line(e.where.line - 1)))
    return;
  errors.push_back(Diagnostic{e.where.path.empty() ? src.path() : e.where.path, e.where.line, e.where.column, e.what()});
}

std::optional<yaml::Node> get(const yaml::Node &map, std::string_view key) {
  // The entry with that scalar key, compared in place (no string is built).
  yaml::Node v = map[key];
  if (!v.IsDefined()) return std::nullopt;
  return v;
}

ObjectMeta objectMeta(const yaml::Node &doc) {
  ObjectMeta m;
  if (auto md = get(doc, "metadata"); md && md->IsMap()) {
    if (auto n = get(*md, "name"); n && n->IsScalar()) m.name = n->Scalar();
    if (auto n = get(*md, "namespace"); n && n->IsScalar()) m.ns = n->Scalar();
  }
  return m;
}

bool TypeMeta::inGroup(std::string_view group) const {
  return api_version.size() > group.size() && api_version.compare(0, group.size(), group) == 0 && api_version[group.size()] == '/';
}

std::optional<TypeMeta> typeMeta(const yaml::Node &doc) {
  auto api = get(doc, "apiVersion");
  auto kind = get(doc, "kind");
  if (!api || !kind || !api->IsScalar() || !kind->IsScalar()) return std::nullopt;
  return TypeMeta{api->Scalar(), kind->Scalar()};
}

bool isKubernetesObject(const yaml::Node &doc, std::string_view group, std::initializer_list<std::string_view> kinds) {
  auto t = typeMeta(doc);
  return t && t->inGroup(group) && std::find(kinds.begin(), kinds.end(), t->kind) != kinds.end();
}

Condition httpStatusCondition(int code, Origin origin, Span where) {
  Condition c = httpStatusRange(std::to_string(code), code, code, origin, std::move(where));
  if (code == 408) c.why_processed = "408 means the request timed out and may have been processed";
  return c;
}

Condition httpStatusRange(std::string text, int lo, int hi, Origin origin, Span where) {
  Condition c;
  c.kind = Condition::Kind::HttpStatus;
  c.text = std::move(text);
  c.http_lo = lo;
  c.http_hi = hi;
  // Only HTTP's statuses, 100-599, are looked at: a stranger's range may run to 2^31.
  for (int code = std::max(lo, 100); code <= std::min(hi, 599) && !c.may_have_been_processed; ++code)
    c.may_have_been_processed = httpCodeMayHaveBeenProcessed(code);
  if (c.may_have_been_processed) c.why_processed = c.text + " can be returned after the request was processed";
  c.origin = origin;
  c.where = std::move(where);
  return c;
}

std::vector<ListEntry> commaList(std::string_view value, std::string_view blanks) {
  std::vector<ListEntry> out;
  size_t pos = 0;
  while (pos <= value.size()) {
    size_t comma = value.find(',', pos);
    if (comma == std::string_view::npos) comma = value.size();
    ListEntry e;
    e.raw = std::string(value.substr(pos, comma - pos));
    e.offset = pos;
    size_t b = e.raw.find_first_not_of(blanks);
    size_t last = e.raw.find_last_not_of(blanks);
    if (b != std::string::npos) e.text = e.raw.substr(b, last - b + 1);
    size_t lead = e.raw.find_first_not_of(" \t");
    e.lead = lead == std::string::npos ? 0 : lead;
    out.push_back(std::move(e));
    pos = comma + 1;
  }
  return out;
}

Span entrySpan(const ExtractContext &cx, const yaml::Node &scalar, const ListEntry &e) {
  return cx.tokenSpan(scalar, e.offset + e.lead, std::max<size_t>(e.text.size(), 1));
}

bool isScalarString(const yaml::Node &n) { return n.IsScalar(); }
bool isQuoted(const yaml::Node &n) { return n.IsScalar() && n.Tag() == "!"; }
bool isNull(const yaml::Node &n) { return n.IsNull(); }

namespace {
std::string kindName(const yaml::Node &n) {
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "empty";
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  return "undefined";
}
} // namespace

std::optional<yaml::Node> mapAt(const ExtractContext &cx, const yaml::Node &parent, std::string_view key, std::string_view what) {
  auto n = get(parent, key);
  if (!n || isNull(*n)) return std::nullopt;
  requireMap(cx, *n, what);
  return n;
}

std::optional<yaml::Node> sequenceAt(const ExtractContext &cx, const yaml::Node &parent, std::string_view key, std::string_view what) {
  auto n = get(parent, key);
  if (!n || isNull(*n)) return std::nullopt;
  requireSequence(cx, *n, what);
  return n;
}

std::optional<Duration> readDuration(ExtractContext &cx, const yaml::Node &n, std::string_view field, const std::string &anchor,
                                     const DurationSyntax &syntax) {
  const std::string text = requireString(cx, n, field);
  const std::string name(field);
  std::string err;
  auto d = syntax.parse(text, &err);
  if (!d) {
    cx.problem(cx.span(n), name + ": " + err + ": " + syntax.refused, anchor + "/" + name);
    return std::nullopt;
  }
  if (syntax.negative_refused && d->nanos < 0) {
    cx.problem(cx.span(n), name + " " + text + " is negative: " + syntax.refused, anchor + "/" + name);
    return std::nullopt;
  }
  return d;
}

std::string requireString(const ExtractContext &cx, const yaml::Node &n, std::string_view what) {
  if (!n.IsScalar()) throw TypeError(cx.span(n), std::string(what) + " must be a string, not " + kindName(n));
  return n.Scalar();
}

long long requireInt(const ExtractContext &cx, const yaml::Node &n, std::string_view what, bool allowQuoted) {
  auto bad = [&] { return TypeError(cx.span(n), std::string(what) + " must be an integer, not " + kindName(n)); };
  if (!n.IsScalar() || (isQuoted(n) && !allowQuoted)) throw bad();
  const std::string &s = n.Scalar();
  if (s.empty()) throw bad();
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end && *end == '\0' && errno == 0) return v;
  // JSON writers sometimes emit 2.0 for an integer; protobuf's JSON parser accepts it.
  errno = 0;
  double d = std::strtod(s.c_str(), &end);
  if (end && *end == '\0' && errno == 0 && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
    return static_cast<long long>(d);
  throw bad();
}

double requireNumber(const ExtractContext &cx, const yaml::Node &n, std::string_view what, bool allowQuoted) {
  auto bad = [&] { return TypeError(cx.span(n), std::string(what) + " must be a number, not " + kindName(n)); };
  if (!n.IsScalar() || (isQuoted(n) && !allowQuoted)) throw bad();
  const std::string &s = n.Scalar();
  errno = 0;
  char *end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || errno != 0 || !std::isfinite(d)) throw bad();
  return d;
}

void requireMap(const ExtractContext &cx, const yaml::Node &n, std::string_view what) {
  if (!n.IsMap()) throw TypeError(cx.span(n), std::string(what) + " must be a map, not " + kindName(n));
}

void requireSequence(const ExtractContext &cx, const yaml::Node &n, std::string_view what) {
  if (!n.IsSequence()) throw TypeError(cx.span(n), std::string(what) + " must be a list, not " + kindName(n));
}

} // namespace retrylint
