#include "lint/report/finding_json.h"

#include <limits>

#include "lint/report/report.h"
#include "rules/rule.h"

namespace retrylint {

namespace json = llvm::json;

namespace {

// Lines, columns, offsets and lengths are whole numbers from 0 (a file-wide diagnostic's line) up
// to what an int holds: a report or cache entry from elsewhere gets no negative column, and no
// offset that would overflow when a length is added to it.
bool readInt(const json::Object &o, llvm::StringRef key, int &out, bool required = true) {
  const json::Value *v = o.get(key);
  if (!v) return !required;
  auto n = v->getAsInteger();
  if (!n || *n < 0 || *n > std::numeric_limits<int>::max()) return false;
  out = static_cast<int>(*n);
  return true;
}

bool readSize(const json::Object &o, llvm::StringRef key, size_t &out) {
  auto n = o.getInteger(key);
  if (!n || *n < 0 || *n > std::numeric_limits<int>::max()) return false;
  out = static_cast<size_t>(*n);
  return true;
}

bool readString(const json::Object &o, llvm::StringRef key, std::string &out, bool required = true) {
  const json::Value *v = o.get(key);
  if (!v) return !required;
  auto s = v->getAsString();
  if (!s) return false;
  out = s->str();
  return true;
}

void writeSpan(json::OStream &j, const Span &s) {
  j.attribute("line", s.line);
  j.attribute("column", s.column);
  j.attribute("end_line", s.end_line);
  j.attribute("end_column", s.end_column);
}

// line and column required; the ends default to them.
bool readSpan(const json::Object &o, Span &s) {
  if (!readInt(o, "line", s.line) || !readInt(o, "column", s.column)) return false;
  s.end_line = s.line;
  s.end_column = s.column;
  return readInt(o, "end_line", s.end_line, false) && readInt(o, "end_column", s.end_column, false);
}

bool readFix(const json::Value &v, const std::string &path, FindingFields fields, Fix &fix) {
  const json::Object *x = v.getAsObject();
  if (!x || !readString(*x, "description", fix.description)) return false;
  fix.safe = x->getBoolean("safe").getValueOr(false);
  if (fields == FindingFields::Full && !readString(*x, "source_sha256", fix.source_sha256, false)) return false;
  const json::Array *edits = x->getArray("edits");
  if (!edits) return false;
  for (const json::Value &ev : *edits) {
    const json::Object *e = ev.getAsObject();
    TextEdit edit;
    edit.where.path = path;
    if (!e || !readSpan(*e, edit.where) || !readSize(*e, "offset", edit.offset) || !readSize(*e, "length", edit.length) ||
        !readString(*e, "replacement", edit.replacement))
      return false;
    fix.edits.push_back(std::move(edit));
  }
  return true;
}

} // namespace

void writeFindingJson(json::OStream &j, const Finding &f, FindingFields fields) {
  j.object([&] {
    j.attribute("rule", f.rule);
    j.attribute("name", f.name);
    j.attribute("severity", std::string(severityName(f.severity)));
    j.attribute("path", validUtf8(f.where.path.str()));
    writeSpan(j, f.where);
    j.attribute("message", validUtf8(f.message));
    j.attribute("format", f.format);
    j.attribute("fingerprint", validUtf8(f.fingerprint));
    j.attributeArray("fixes", [&] {
      for (const Fix &fix : f.fixes) {
        j.object([&] {
          j.attribute("description", validUtf8(fix.description));
          j.attribute("safe", fix.safe);
          if (fields == FindingFields::Full && !fix.source_sha256.empty()) j.attribute("source_sha256", fix.source_sha256);
          j.attributeArray("edits", [&] {
            for (const TextEdit &e : fix.edits) {
              j.object([&] {
                writeSpan(j, e.where);
                j.attribute("offset", static_cast<int64_t>(e.offset));
                j.attribute("length", static_cast<int64_t>(e.length));
                j.attribute("replacement", validUtf8(e.replacement));
              });
            }
          });
        });
      }
    });
    if (fields == FindingFields::Full) {
      j.attribute("anchor", validUtf8(f.anchor));
      j.attributeArray("reads", [&] {
        for (const auto &range : f.reads) {
          j.array([&] {
            j.value(range.first);
            j.value(range.second);
          });
        }
      });
    }
  });
}

bool readFindingJson(const json::Value &v, FindingFields fields, Finding &f, std::string &error) {
  const json::Object *o = v.getAsObject();
  std::string severity, path;
  if (!o || !readString(*o, "rule", f.rule) || !readString(*o, "severity", severity) || !readString(*o, "path", path) ||
      !readSpan(*o, f.where)) {
    error = "a finding lacks its rule, severity or location";
    return false;
  }
  auto sev = parseSeverity(severity);
  if (!sev) {
    error = "a finding's severity is '" + severity + "', not error, warning or note";
    return false;
  }
  const Rule *rule = findRule(f.rule);
  if (!rule || rule->code != f.rule) {
    error = "a finding's rule '" + escapeControls(f.rule) + "' is no rule code of this retrylint (" + RETRYLINT_VERSION + ")";
    return false;
  }
  if (f.where.end_line < f.where.line) {
    error = "a finding of " + f.rule + " ends (line " + std::to_string(f.where.end_line) + ") before it starts (line " +
            std::to_string(f.where.line) + ")";
    return false;
  }
  f.severity = *sev;
  f.where.path = path;
  if (!readString(*o, "name", f.name, false) || !readString(*o, "message", f.message, false) ||
      !readString(*o, "format", f.format, false) || !readString(*o, "fingerprint", f.fingerprint, false)) {
    error = "a finding's name, message, format or fingerprint is not a string";
    return false;
  }
  if (const json::Value *fixes = o->get("fixes")) {
    const json::Array *a = fixes->getAsArray();
    bool ok = a != nullptr;
    for (size_t i = 0; ok && i < a->size(); ++i) {
      Fix fix;
      ok = readFix((*a)[i], path, fields, fix);
      if (ok) f.fixes.push_back(std::move(fix));
    }
    if (!ok) {
      error = "a finding's fixes are malformed (each needs a description and edits with line, column, offset, "
              "length and replacement)";
      return false;
    }
  }
  if (fields == FindingFields::Full) {
    const json::Array *reads = o->getArray("reads");
    bool ok = readString(*o, "anchor", f.anchor) && reads;
    for (size_t i = 0; ok && i < reads->size(); ++i) {
      const json::Array *r = (*reads)[i].getAsArray();
      llvm::Optional<int64_t> from, to;
      if (r && r->size() == 2) {
        from = (*r)[0].getAsInteger();
        to = (*r)[1].getAsInteger();
      }
      ok = from && to && *from >= 0 && *to >= *from && *to <= std::numeric_limits<int>::max();
      if (ok) f.reads.emplace_back(static_cast<int>(*from), static_cast<int>(*to));
    }
    if (!ok) {
      error = "a finding's anchor or read lines are malformed";
      return false;
    }
  }
  return true;
}

void writeDiagnosticJson(json::OStream &j, const Diagnostic &d) {
  j.object([&] {
    j.attribute("path", validUtf8(d.path));
    j.attribute("line", d.line);
    j.attribute("column", d.column);
    j.attribute("message", validUtf8(d.message));
  });
}

bool readDiagnosticJson(const json::Value &v, Diagnostic &d, std::string &error) {
  const json::Object *o = v.getAsObject();
  if (!o || !readString(*o, "path", d.path) || !readInt(*o, "line", d.line, false) || !readInt(*o, "column", d.column, false) ||
      !readString(*o, "message", d.message)) {
    error = "an error lacks its path or message";
    return false;
  }
  return true;
}

} // namespace retrylint
