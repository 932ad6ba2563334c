#include "lint/suppress/baseline.h"
#include "lint/io/write_file.h"

#include <algorithm>
#include <regex>

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
} // namespace

std::optional<Baseline> loadBaseline(const std::string &path, std::vector<Diagnostic> &errors) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    errors.push_back(Diagnostic{path, 0, 0, "cannot read the baseline: " + buf.getError().message()});
    return std::nullopt;
  }
  auto parsed = llvm::json::parse((*buf)->getBuffer());
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    int line = 0, col = 0;
    std::smatch m;
    if (std::regex_search(msg, m, std::regex(R"(\[(\d+):(\d+), byte=\d+\]:?\s*)"))) {
      line = std::stoi(m[1]);
      col = std::stoi(m[2]);
      msg = m.prefix().str() + m.suffix().str();
    }
    errors.push_back(Diagnostic{path, line, col, "invalid baseline JSON: " + msg});
    return std::nullopt;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *findings = root ? root->getArray("findings") : nullptr;
  if (!root || root->getInteger("version").getValueOr(0) != 1 || !findings) {
    errors.push_back(Diagnostic{path, 1, 1, "not a retrylint baseline (expected {\"version\": 1, \"findings\": [...]})"});
    return std::nullopt;
  }
  Baseline b;
  for (const auto &v : *findings) {
    const llvm::json::Object *f = v.getAsObject();
    auto rule = f ? f->getString("rule") : llvm::None;
    auto file = f ? f->getString("path") : llvm::None;
    auto fp = f ? f->getString("fingerprint") : llvm::None;
    if (!rule || !file || !fp) {
      errors.push_back(Diagnostic{path, 0, 0, "baseline entry without rule, path and fingerprint"});
      return std::nullopt;
    }
    int count = static_cast<int>(f->getInteger("count").getValueOr(1));
    b.entries[{rule->str(), normalisePath(file->str()), fp->str()}] += std::max(count, 1);
  }
  return b;
}

bool writeBaseline(const std::string &path, const std::vector<Finding> &findings, std::string &error) {
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<int, std::string>> grouped;
  for (const Finding &f : findings) {
    auto &slot = grouped[{f.rule, normalisePath(f.where.path), f.fingerprint}];
    if (slot.first++ == 0) slot.second = f.message;
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
            if (value.first > 1) j.attribute("count", value.first);
            j.attribute("message", value.second);
          });
        }
      });
    });
    os << "\n";
  }, error);
}

size_t applyBaseline(const Baseline &baseline, std::vector<Finding> &findings) {
  auto remaining = baseline.entries;
  size_t before = findings.size();
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [&](const Finding &f) {
                                  auto it = remaining.find({f.rule, normalisePath(f.where.path), f.fingerprint});
                                  if (it == remaining.end() || it->second == 0) return false;
                                  --it->second;
                                  return true;
                                }),
                 findings.end());
  return before - findings.size();
}

} // namespace retrylint
