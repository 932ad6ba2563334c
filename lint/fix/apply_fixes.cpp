#include "lint/fix/apply_fixes.h"

#include <algorithm>
#include <map>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

namespace retrylint {

bool applyEdits(std::string &text, std::vector<TextEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](const TextEdit &a, const TextEdit &b) { return a.offset > b.offset; });
  size_t limit = text.size();
  for (const TextEdit &e : edits) {
    if (e.offset + e.length > limit) return false; // overlaps the previous (later) edit
    text.replace(e.offset, e.length, e.replacement);
    limit = e.offset;
  }
  return true;
}

FixSummary applyFixes(const std::vector<Finding> &findings) {
  FixSummary summary;
  std::map<std::string, std::vector<const Fix *>> byFile;
  for (const Finding &f : findings)
    if (!f.fixes.empty()) byFile[f.where.path].push_back(&f.fixes.front());
  for (auto &[path, fixes] : byFile) {
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!buf) {
      summary.errors.push_back(Diagnostic{path, 0, 0, "cannot read for --fix: " + buf.getError().message()});
      continue;
    }
    std::string text = (*buf)->getBuffer().str();
    const size_t bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    std::vector<TextEdit> accepted;
    size_t applied = 0;
    for (const Fix *fix : fixes) {
      std::vector<TextEdit> candidate = accepted;
      for (TextEdit e : fix->edits) {
        e.offset += bom;
        candidate.push_back(e);
      }
      std::string probe = text;
      if (!applyEdits(probe, candidate)) continue; // overlaps an accepted fix
      accepted = std::move(candidate);
      ++applied;
    }
    if (accepted.empty()) continue;
    applyEdits(text, accepted);
    std::string tmp = path + ".retrylint-fix";
    std::error_code ec;
    {
      llvm::raw_fd_ostream os(tmp, ec, llvm::sys::fs::OF_None);
      if (!ec) os << text;
    }
    if (ec || llvm::sys::fs::rename(tmp, path)) {
      llvm::sys::fs::remove(tmp);
      summary.errors.push_back(Diagnostic{path, 0, 0, "cannot write the fixed file"});
      continue;
    }
    summary.fixes_applied += applied;
    ++summary.files_changed;
  }
  return summary;
}

} // namespace retrylint
