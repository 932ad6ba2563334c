#include "lint/suppress/baseline.h"
#include "lint/discover/identity.h"
#include "lint/io/write_file.h"
#include "lint/yaml/json_strict.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <system_error>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

namespace retrylint {
namespace {
std::string normalisePath(std::string p) {
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  return p;
}
// A baseline is a few hundred bytes per finding: one this large is not one, and parsing it whole
// (a JSON tree is several times the text) could exhaust memory.
constexpr uint64_t kMaxBaselineBytes = 64ull << 20;

// Reads at most `limit` bytes of `path` (a pipe too, read as a stream); an error message when it
// cannot be read or holds more.
std::string readBounded(const std::string &path, uint64_t limit, std::string &text) {
  auto tooBig = [&] {
    return "the baseline is larger than " + std::to_string(limit >> 20) + " MiB; not a retrylint baseline";
  };
  auto fd = llvm::sys::fs::openNativeFileForRead(path);
  if (!fd) return "cannot read the baseline: " + llvm::toString(fd.takeError());
  struct Closer {
    llvm::sys::fs::file_t fd;
    ~Closer() { llvm::sys::fs::closeFile(fd); }
  } closer{*fd};
  llvm::sys::fs::file_status st;
  if (std::error_code ec = llvm::sys::fs::status(*fd, st)) return "cannot read the baseline: " + ec.message();
  if (st.type() == llvm::sys::fs::file_type::directory_file) return "cannot read the baseline: " + std::make_error_code(std::errc::is_a_directory).message();
  if (st.type() == llvm::sys::fs::file_type::regular_file && st.getSize() > limit) return tooBig();
  // A regular file's size may change meanwhile, and a pipe's or device's is unknown: read in
  // chunks up to one byte past the limit.
  text.clear();
  constexpr size_t kChunk = 1 << 16;
  for (;;) {
    size_t have = text.size();
    text.resize(have + kChunk);
    auto got = llvm::sys::fs::readNativeFile(*fd, llvm::makeMutableArrayRef(text.data() + have, kChunk));
    if (!got) return "cannot read the baseline: " + llvm::toString(got.takeError());
    text.resize(have + *got);
    if (*got == 0) return {};
    if (text.size() > limit) return tooBig();
  }
}

} // namespace

std::optional<Baseline> loadBaseline(const std::string &path, std::vector<Diagnostic> &errors) {
  std::string text;
  if (std::string error = readBounded(path, kMaxBaselineBytes, text); !error.empty()) {
    errors.push_back(Diagnostic{path, 0, 0, error});
    return std::nullopt;
  }
  auto parsed = yaml::parseJsonWithin(text);
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    const yaml::JsonErrorPosition at = yaml::liftJsonErrorPosition(msg);
    errors.push_back(Diagnostic{path, at.line, at.column, "invalid baseline JSON: " + msg});
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *findings = root ? root->getArray("findings") : nullptr;
  if (!root || root->getInteger("version").getValueOr(0) != 1 || !findings) {
    errors.push_back(Diagnostic{path, 1, 1, "not a retrylint baseline (expected {\"version\": 1, \"findings\": [...]})"});
    return std::nullopt;
  }
  Baseline b;
  size_t index = 0;
  for (const auto &v : *findings) {
    ++index;
    const llvm::json::Object *f = v.getAsObject();
    auto rule = f ? f->getString("rule") : llvm::None;
    auto file = f ? f->getString("path") : llvm::None;
    auto fp = f ? f->getString("fingerprint") : llvm::None;
    if (!rule || !file || !fp) {
      errors.push_back(Diagnostic{path, 0, 0, "baseline entry " + std::to_string(index) + " has no rule, path and fingerprint"});
      return std::nullopt;
    }
    // How many findings of this rule and construct the file had: a whole number from 1 up.
    int64_t count = 1;
    if (const llvm::json::Value *c = f->get("count")) {
      auto n = c->getAsInteger();
      if (!n || *n < 1 || *n > std::numeric_limits<int>::max()) {
        std::string shown;
        llvm::raw_string_ostream os(shown);
        os << *c;
        errors.push_back(Diagnostic{path, 0, 0, "baseline entry " + std::to_string(index) + " (" + rule->str() + " in " +
                                                    file->str() + "): count must be a whole number from 1 to " +
                                                    std::to_string(std::numeric_limits<int>::max()) + ", not " + os.str()});
        return std::nullopt;
      }
      count = *n;
    }
    const Baseline::Key key{rule->str(), normalisePath(file->str()), fp->str()};
    int &slot = b.entries[key];
    slot = static_cast<int>(std::min<int64_t>(slot + count, std::numeric_limits<int>::max()));
    if (auto m = f->getString("message")) b.messages.try_emplace(key, m->str());
    if (auto sev = f->getString("severity")) b.severities.try_emplace(key, sev->str());
  }
  return b;
}

bool writeBaseline(const std::string &path, const std::vector<Finding> &findings, const std::string &root, std::string &error) {
  struct Recorded {
    int count = 0;
    std::string message;
    Severity severity = Severity::Note;
  };
  std::map<Baseline::Key, Recorded> grouped;
  for (const Finding &f : findings) {
    Recorded &slot = grouped[{f.rule, identityPath(root, f.where.path), f.fingerprint}];
    if (slot.count++ == 0) slot.message = f.message;
    slot.severity = std::max(slot.severity, f.severity); // the gravest
  }
  // All or nothing: a full disk never leaves a truncated baseline in place of the old one.
  return writeOutputFile(path, [&](llvm::raw_ostream &os) {
    llvm::json::OStream j(os, 2);
    j.object([&] {
      j.attribute("version", 1);
      j.attribute("tool", "retrylint");
      j.attributeArray("findings", [&] {
        for (const auto &entry : grouped) {
          const auto &key = entry.first; // not a structured binding: clang 14 cannot capture those
          const auto &value = entry.second;
          j.object([&] {
            j.attribute("rule", std::get<0>(key));
            j.attribute("path", std::get<1>(key));
            j.attribute("fingerprint", std::get<2>(key));
            if (value.count > 1) j.attribute("count", value.count);
            j.attribute("severity", std::string(severityName(value.severity)));
            j.attribute("message", value.message);
          });
        }
      });
    });
    os << "\n";
  }, error);
}

namespace {

// The numbers of a message, in order, and its wording with each number as '#'.
struct Numbers {
  std::vector<double> values;
  std::vector<std::string> texts;
  std::string wording;
};
Numbers numbersOf(llvm::StringRef message) {
  Numbers n;
  for (size_t i = 0; i < message.size();) {
    if (!llvm::isDigit(message[i])) {
      n.wording += message[i++];
      continue;
    }
    size_t end = i;
    while (end < message.size() && (llvm::isDigit(message[end]) || (message[end] == '.' && end + 1 < message.size() &&
                                                                    llvm::isDigit(message[end + 1]))))
      ++end;
    llvm::StringRef text = message.slice(i, end);
    double v = 0;
    if (text.getAsDouble(v)) v = 0;
    n.values.push_back(v);
    n.texts.push_back(text.str());
    n.wording += '#';
    i = end;
  }
  return n;
}

// Why a finding is worse than what the baseline recorded of it ("" when it is not): a severity
// that rose, or a number of the same wording that moved by a factor of 2 or more.
std::string worseThanRecorded(const Baseline &b, const Baseline::Key &key, const Finding &f) {
  if (auto s = b.severities.find(key); s != b.severities.end())
    if (auto was = parseSeverity(s->second); was && f.severity > *was)
      return "baselined as " + s->second + ", now " + std::string(severityName(f.severity));
  auto m = b.messages.find(key);
  if (m == b.messages.end()) return "";
  Numbers was = numbersOf(m->second), now = numbersOf(f.message);
  if (was.wording != now.wording) return ""; // reworded (another version): nothing to compare
  for (size_t i = 0; i < was.values.size(); ++i) {
    double lo = std::min(was.values[i], now.values[i]), hi = std::max(was.values[i], now.values[i]);
    if (hi >= 2 * lo && hi > 0) return "baselined at " + was.texts[i] + ", now " + now.texts[i];
  }
  return "";
}

} // namespace

size_t applyBaseline(const Baseline &baseline, std::vector<Finding> &findings, const std::string &root) {
  auto remaining = baseline.entries;
  size_t before = findings.size();
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [&](Finding &f) {
                                  const Baseline::Key key{f.rule, identityPath(root, f.where.path), f.fingerprint};
                                  auto it = remaining.find(key);
                                  if (it == remaining.end() || it->second == 0) return false;
                                  if (std::string worse = worseThanRecorded(baseline, key, f); !worse.empty()) {
                                    f.message += " (" + worse + ")";
                                    return false;
                                  }
                                  --it->second;
                                  return true;
                                }),
                 findings.end());
  return before - findings.size();
}

} // namespace retrylint
