#include "lint/perf/cache.h"

#include <atomic>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/SHA1.h>
#include <llvm/Support/raw_ostream.h>

namespace retrylint {
namespace {

namespace json = llvm::json;

json::Value spanJson(const Span &s) {
  return json::Array{s.path.str(), s.line, s.column, s.end_line, s.end_column};
}
bool spanFrom(const json::Value *v, Span &s) {
  const json::Array *a = v ? v->getAsArray() : nullptr;
  if (!a || a->size() != 5) return false;
  auto str = (*a)[0].getAsString();
  if (!str) return false;
  s.path = str->str();
  int *fields[] = {&s.line, &s.column, &s.end_line, &s.end_column};
  for (int i = 0; i < 4; ++i) {
    auto n = (*a)[i + 1].getAsInteger();
    if (!n) return false;
    *fields[i] = static_cast<int>(*n);
  }
  return true;
}
std::string str(const json::Object &o, llvm::StringRef k) {
  auto s = o.getString(k);
  return s ? s->str() : std::string();
}

// Identifies this very binary, so a rebuilt tool never trusts results of the previous build.
std::string toolIdentity() {
  static const std::string id = [] {
    std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    llvm::sys::fs::file_status st;
    std::string out = std::string(RETRYLINT_VERSION) + "|" + exe;
    if (!exe.empty() && !llvm::sys::fs::status(exe, st))
      out += "|" + std::to_string(st.getSize()) + "|" + std::to_string(st.getLastModificationTime().time_since_epoch().count());
    return out;
  }();
  return id;
}

} // namespace

std::string fileResultToJson(const FileResult &r) {
  json::Array findings;
  for (const Finding &f : r.findings) {
    json::Array fixes;
    for (const Fix &fix : f.fixes) {
      json::Array edits;
      for (const TextEdit &e : fix.edits)
        edits.push_back(json::Object{{"where", spanJson(e.where)},
                                     {"offset", static_cast<int64_t>(e.offset)},
                                     {"length", static_cast<int64_t>(e.length)},
                                     {"replacement", e.replacement}});
      fixes.push_back(json::Object{{"description", fix.description}, {"edits", std::move(edits)}});
    }
    findings.push_back(json::Object{{"rule", f.rule}, {"name", f.name}, {"severity", static_cast<int>(f.severity)},
                                    {"where", spanJson(f.where)}, {"message", f.message}, {"format", f.format},
                                    {"anchor", f.anchor}, {"fingerprint", f.fingerprint}, {"fixes", std::move(fixes)}});
  }
  json::Array errors;
  for (const Diagnostic &d : r.errors)
    errors.push_back(json::Object{{"path", d.path}, {"line", d.line}, {"column", d.column}, {"message", d.message}});
  json::Value v = json::Object{{"findings", std::move(findings)}, {"errors", std::move(errors)},
                               {"analysed", r.analysed}, {"policies", static_cast<int64_t>(r.policies)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << v;
  return os.str();
}

std::optional<FileResult> fileResultFromJson(const std::string &text) {
  auto parsed = json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const json::Object *o = parsed->getAsObject();
  if (!o) return std::nullopt;
  FileResult r;
  const json::Array *findings = o->getArray("findings"), *errors = o->getArray("errors");
  auto analysed = o->getBoolean("analysed");
  auto policies = o->getInteger("policies");
  if (!findings || !errors || !analysed || !policies) return std::nullopt;
  r.analysed = *analysed;
  r.policies = static_cast<size_t>(*policies);
  for (const json::Value &fv : *findings) {
    const json::Object *f = fv.getAsObject();
    if (!f) return std::nullopt;
    Finding out;
    out.rule = str(*f, "rule");
    out.name = str(*f, "name");
    out.severity = static_cast<Severity>(f->getInteger("severity").getValueOr(1));
    if (!spanFrom(f->get("where"), out.where)) return std::nullopt;
    out.message = str(*f, "message");
    out.format = str(*f, "format");
    out.anchor = str(*f, "anchor");
    out.fingerprint = str(*f, "fingerprint");
    if (const json::Array *fixes = f->getArray("fixes"))
      for (const json::Value &xv : *fixes) {
        const json::Object *x = xv.getAsObject();
        if (!x) return std::nullopt;
        Fix fix;
        fix.description = str(*x, "description");
        if (const json::Array *edits = x->getArray("edits"))
          for (const json::Value &ev : *edits) {
            const json::Object *e = ev.getAsObject();
            if (!e) return std::nullopt;
            TextEdit edit;
            if (!spanFrom(e->get("where"), edit.where)) return std::nullopt;
            edit.offset = static_cast<size_t>(e->getInteger("offset").getValueOr(0));
            edit.length = static_cast<size_t>(e->getInteger("length").getValueOr(0));
            edit.replacement = str(*e, "replacement");
            fix.edits.push_back(std::move(edit));
          }
        out.fixes.push_back(std::move(fix));
      }
    r.findings.push_back(std::move(out));
  }
  for (const json::Value &dv : *errors) {
    const json::Object *d = dv.getAsObject();
    if (!d) return std::nullopt;
    r.errors.push_back(Diagnostic{str(*d, "path"), static_cast<int>(d->getInteger("line").getValueOr(0)),
                                  static_cast<int>(d->getInteger("column").getValueOr(0)), str(*d, "message")});
  }
  return r;
}

std::string ResultCache::key(const std::string &path, bool named, const std::string &content, const RunOptions &options) {
  // Everything a file's result depends on. A new field in Settings or ExtractOptions must be
  // added here: these asserts fail the build until it is.
  // (Settings::layer is per file and only set when layers are declared; the engine does not use
  // the cache then.)
  static_assert(sizeof(ExtractOptions) <= sizeof(std::string) + sizeof(size_t) + 2 * sizeof(int) + sizeof(void *),
                "add the new ExtractOptions field to the cache key");
  std::string head = toolIdentity();
  head += '\0' + path + '\0' + (named ? "named" : "found") + '\0';
  for (const auto &[code, sev] : effectiveRules(options, path))
    head += code + "=" + (sev ? std::string(severityName(*sev)) : "off") + ";";
  head += '\0' + std::to_string(options.settings.max_attempts) + "," + std::to_string(options.settings.max_amplification);
  head += '\0' + options.extract.compile_commands_dir + (options.extract.prefilter ? "|pf" : "|nopf");
  head += '\0' + std::to_string(options.extract.max_file_bytes) + "," + std::to_string(options.extract.max_nesting) + "," +
          std::to_string(options.extract.cpp_timeout_seconds);
  head += '\0' + std::to_string(head.size()) + '\0';
  llvm::SHA1 sha;
  sha.update(head);
  sha.update(content);
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}

std::string ResultCache::file(const std::string &key) const {
  llvm::SmallString<256> p(dir_);
  llvm::sys::path::append(p, "v1", key.substr(0, 2), key.substr(2) + ".json");
  return std::string(p.str());
}

std::optional<FileResult> ResultCache::load(const std::string &key) const {
  auto buf = llvm::MemoryBuffer::getFile(file(key), /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf) return std::nullopt;
  return fileResultFromJson((*buf)->getBuffer().str());
}

void ResultCache::store(const std::string &key, const FileResult &r) const {
  static std::atomic<unsigned> counter{0};
  std::string target = file(key);
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(target))) return;
  // Write aside, then rename: a concurrent reader sees the old entry or the whole new one.
  std::string tmp = target + ".tmp" + std::to_string(llvm::sys::Process::getProcessId()) + "." + std::to_string(counter++);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) return;
    os << fileResultToJson(r);
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return;
    }
  }
  if (llvm::sys::fs::rename(tmp, target)) llvm::sys::fs::remove(tmp);
}

bool inShard(const std::string &path, unsigned k, unsigned n) {
  uint64_t h = 1469598103934665603ull; // FNV-1a, 64 bit
  for (unsigned char c : path) h = (h ^ c) * 1099511628211ull;
  return h % n == k - 1;
}

std::optional<std::pair<unsigned, unsigned>> parseShard(const std::string &text) {
  auto [a, b] = llvm::StringRef(text).split('/');
  unsigned k = 0, n = 0;
  if (a.getAsInteger(10, k) || b.getAsInteger(10, n) || k < 1 || n < 1 || k > n) return std::nullopt;
  return std::make_pair(k, n);
}

} // namespace retrylint
