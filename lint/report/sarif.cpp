// SARIF 2.1.0 as GitHub code scanning accepts it: the rule catalogue with full help, results with
// regions, partialFingerprints and fixes, and analysis errors as tool execution notifications.
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

#include "lint/report/report.h"
#include "lint/discover/identity.h"

namespace retrylint {
namespace {

std::string level(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "warning";
}

// A relative path becomes a relative URI (percent-encoded); an absolute one a file:// URI.
std::string toUri(const std::string &path) {
  std::string p = path;
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  std::string out;
  for (unsigned char c : p) {
    if (std::isalnum(c) || std::string_view("/-._~").find(static_cast<char>(c)) != std::string_view::npos) out += static_cast<char>(c);
    else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return llvm::sys::path::is_absolute(path) ? "file://" + out : out;
}

// A span's columns count bytes; SARIF's here count code points (columnKind unicodeCodePoints).
void region(llvm::json::OStream &j, const Span &s, SourceLines &lines, const char *name = "region") {
  const int line = std::max(s.line, 1), endLine = std::max(s.end_line, line);
  j.attributeObject(name, [&] {
    j.attribute("startLine", line);
    j.attribute("startColumn", lines.codePointColumn(s.path, line, std::max(s.column, 1)));
    j.attribute("endLine", endLine);
    j.attribute("endColumn", lines.codePointColumn(s.path, endLine, std::max(s.end_column, std::max(s.column, 1))));
  });
}

// A file's URI: relative to %SRCROOT% (the project root) when inside it, whatever the current
// directory and however the path was typed; else an absolute file:// URI.
void artifactLocation(llvm::json::OStream &j, const std::string &root, const std::string &path) {
  j.attributeObject("artifactLocation", [&] {
    std::string id = identityPath(root, path);
    j.attribute("uri", toUri(id));
    if (!llvm::sys::path::is_absolute(id)) j.attribute("uriBaseId", "%SRCROOT%");
  });
}

void location(llvm::json::OStream &j, const std::string &path, const Span *s, SourceLines &lines, const std::string &root) {
  j.object([&] {
    j.attributeObject("physicalLocation", [&] {
      artifactLocation(j, root, path);
      if (s && s->line > 0) region(j, *s, lines);
    });
  });
}

std::string markdownHelp(const Rule &r) {
  std::string md = "**" + std::string(r.code) + " " + std::string(r.name) + "**: " + std::string(r.summary) + "\n";
  auto section = [&](std::string_view heading, std::string_view body, bool code) {
    if (body.empty()) return;
    md += "\n### " + std::string(heading) + "\n\n";
    md += code ? "```\n" + std::string(body) + "\n```\n" : std::string(body) + "\n";
  };
  section("What it finds", r.doc.what, false);
  section("Why it matters", r.doc.why, false);
  section("Example", r.doc.example, true);
  section("Instead", r.doc.instead, true);
  section("Options", r.doc.options, false);
  section("References", r.doc.references, false);
  return md;
}

} // namespace

void writeSarif(llvm::raw_ostream &os, const RunResult &result) {
  // The rules that ran, and any rule a finding names (a chain rule configured on elsewhere).
  std::vector<const Rule *> rules;
  for (size_t i = 0; i < allRules().size(); ++i) {
    const Rule *r = allRules()[i];
    bool ran = result.rules_run.empty() || (i < result.rules_run.size() && result.rules_run[i]);
    for (size_t k = 0; k < result.findings.size() && !ran; ++k) ran = result.findings[k].rule == r->code;
    if (ran) rules.push_back(r);
  }
  llvm::SmallString<256> cwd;
  llvm::sys::fs::current_path(cwd);
  std::string root = toUri(result.project_root.empty() ? cwd.str().str() : result.project_root);
  if (root.empty() || root.back() != '/') root += '/';

  SourceLines lines(result);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    j.attribute("version", "2.1.0");
    j.attributeArray("runs", [&] {
      j.object([&] {
        j.attributeObject("tool", [&] {
          j.attributeObject("driver", [&] {
            j.attribute("name", "retrylint");
            j.attribute("informationUri", RETRYLINT_HOMEPAGE);
            j.attribute("version", RETRYLINT_VERSION);
            j.attribute("semanticVersion", RETRYLINT_VERSION);
            j.attributeArray("rules", [&] {
              for (const Rule *r : rules) {
                j.object([&] {
                  j.attribute("id", std::string(r->code));
                  j.attribute("name", std::string(r->name));
                  j.attribute("helpUri", ruleHelpUri(*r));
                  j.attributeObject("shortDescription", [&] { j.attribute("text", std::string(r->summary)); });
                  j.attributeObject("fullDescription", [&] { j.attribute("text", std::string(r->doc.what)); });
                  j.attributeObject("help", [&] {
                    j.attribute("text", explainRule(*r));
                    j.attribute("markdown", markdownHelp(*r));
                  });
                  j.attributeObject("defaultConfiguration", [&] { j.attribute("level", level(r->severity)); });
                  j.attributeObject("properties", [&] {
                    j.attributeArray("tags", [&] {
                      j.value("retry");
                      j.value("reliability");
                    });
                    j.attribute("precision", "high");
                    j.attribute("problem.severity", r->severity == Severity::Note ? "recommendation" : level(r->severity));
                  });
                });
              }
            });
          });
        });
        // Columns count Unicode code points (spans count bytes; region() converts).
        j.attribute("columnKind", "unicodeCodePoints");
        j.attributeObject("originalUriBaseIds", [&] {
          j.attributeObject("%SRCROOT%", [&] { j.attribute("uri", root); });
        });
        j.attributeArray("invocations", [&] {
          j.object([&] {
            j.attribute("executionSuccessful", result.errors.empty());
            j.attributeArray("toolExecutionNotifications", [&] {
              for (const Diagnostic &d : result.errors) {
                j.object([&] {
                  j.attribute("level", "error");
                  j.attributeObject("message", [&] { j.attribute("text", validUtf8(d.message)); });
                  Span s{d.path, d.line, d.column, d.line, d.column};
                  j.attributeArray("locations", [&] { location(j, d.path, &s, lines, result.project_root); });
                });
              }
            });
          });
        });
        j.attributeArray("results", [&] {
          for (const Finding &f : result.findings) {
            j.object([&] {
              j.attribute("ruleId", f.rule);
              for (size_t i = 0; i < rules.size(); ++i)
                if (rules[i]->code == f.rule) j.attribute("ruleIndex", static_cast<int64_t>(i));
              j.attribute("level", level(f.severity));
              j.attributeObject("message", [&] { j.attribute("text", validUtf8(f.message)); });
              j.attributeArray("locations", [&] { location(j, f.where.path, &f.where, lines, result.project_root); });
              j.attributeObject("partialFingerprints", [&] { j.attribute("retrylintFingerprint/v1", f.fingerprint); });
              if (!f.fixes.empty()) {
                j.attributeArray("fixes", [&] {
                  for (const Fix &fix : f.fixes) {
                    j.object([&] {
                      j.attributeObject("description", [&] { j.attribute("text", fix.description); });
                      j.attributeArray("artifactChanges", [&] {
                        j.object([&] {
                          artifactLocation(j, result.project_root, f.where.path);
                          j.attributeArray("replacements", [&] {
                            for (const TextEdit &e : fix.edits) {
                              j.object([&] {
                                Span edited = e.where;
                                edited.path = f.where.path;
                                region(j, edited, lines, "deletedRegion");
                                j.attributeObject("insertedContent", [&] { j.attribute("text", e.replacement); });
                              });
                            }
                          });
                        });
                      });
                    });
                  }
                });
              }
            });
          }
        });
      });
    });
  });
  os << "\n";
}

} // namespace retrylint
