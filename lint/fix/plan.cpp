#include "lint/fix/plan.h"

#include <algorithm>
#include <map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lint/fix/apply_fixes.h"
#include "lint/io/posix.h"

namespace retrylint {
namespace {

// The text of a regular file (a link, a FIFO or a device is not read: --fix would refuse it).
bool readRegular(const std::string &path, std::string &text) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && io::readFd(fd, static_cast<size_t>(st.st_size), text);
  ::close(fd);
  return ok;
}

size_t bomLength(const std::string &text) { return text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0; }

// A finding by what it is about, not where: a fix moves lines.
using Key = std::pair<std::string, std::string>; // rule, anchor
std::map<Key, int> counts(const std::vector<Finding> &findings) {
  std::map<Key, int> out;
  for (const Finding &f : findings) ++out[{f.rule, f.anchor}];
  return out;
}

std::vector<TextEdit> shifted(const std::vector<TextEdit> &edits, std::ptrdiff_t by) {
  std::vector<TextEdit> out = edits;
  for (TextEdit &e : out) e.offset = static_cast<size_t>(static_cast<std::ptrdiff_t>(e.offset) + by);
  return out;
}

enum class Check { Holds, Overlaps, Fails };

// Whether f's fix (shifted past a BOM of `bom` bytes), applied to `text` on top of `accepted`,
// removes the finding `f` and raises no other. `before`: the findings of `text`; `fixedSoFar`: how
// many of f's kind the accepted edits already remove. The edits with it go to `out`.
Check fixHolds(const Finding &f, const std::string &path, const std::string &text, size_t bom, const std::map<Key, int> &before,
               const std::vector<TextEdit> &accepted, int fixedSoFar, const RunOptions &options, std::vector<TextEdit> &out) {
  std::vector<TextEdit> candidate = accepted;
  for (const TextEdit &e : shifted(f.fixes.front().edits, static_cast<std::ptrdiff_t>(bom))) candidate.push_back(e);
  std::string probe = text;
  if (!applyEdits(probe, candidate)) return Check::Overlaps;
  const std::map<Key, int> after = counts(analyseText(path, probe, true, options).findings);
  for (const auto &[key, n] : after) {
    auto it = before.find(key);
    if (n > (it == before.end() ? 0 : it->second)) return Check::Fails;
  }
  // Its own finding must be gone, where a single file shows it (a chain finding does not).
  if (auto own = before.find({f.rule, f.anchor}); own != before.end()) {
    auto now = after.find(own->first);
    int n = now == after.end() ? 0 : now->second;
    if (n > own->second - fixedSoFar - 1) return Check::Fails;
  }
  out = std::move(candidate);
  return Check::Holds;
}

} // namespace

void dropFixesThatFail(std::vector<Finding> &findings, const RunOptions &options) {
  std::map<std::string, std::vector<Finding *>> byPath;
  for (Finding &f : findings)
    if (!f.fixes.empty()) byPath[f.where.path].push_back(&f);
  for (auto &[path, withFixes] : byPath) {
    std::string text;
    if (!readRegular(path, text)) continue;
    const size_t bom = bomLength(text);
    if (textDigest(std::string_view(text).substr(bom)) != withFixes.front()->fixes.front().source_sha256) continue;
    const std::map<Key, int> before = counts(analyseText(path, text, true, options).findings);
    for (Finding *f : withFixes) {
      std::vector<TextEdit> edits;
      if (fixHolds(*f, path, text, bom, before, {}, 0, options, edits) != Check::Holds) f->fixes.clear();
    }
  }
}

FixPlan planFixes(const std::vector<Finding> &findings, const RunOptions &options, bool unsafe) {
  FixPlan plan;
  std::map<std::string, std::vector<const Finding *>> byPath;
  for (const Finding &f : findings) {
    if (f.fixes.empty()) continue;
    const Fix &fix = f.fixes.front();
    if (!unsafe && (!fix.safe || f.severity == Severity::Note)) {
      ++plan.needs_unsafe;
      continue;
    }
    byPath[f.where.path].push_back(&f);
  }
  for (auto &[path, candidates] : byPath) {
    std::string text;
    if (!readRegular(path, text)) {
      // The writer reports why (applyFixes); choose them so it does.
      for (const Finding *f : candidates) plan.chosen.push_back(*f);
      continue;
    }
    const size_t bom = bomLength(text);
    if (textDigest(std::string_view(text).substr(bom)) != candidates.front()->fixes.front().source_sha256) {
      for (const Finding *f : candidates) plan.chosen.push_back(*f); // the writer says it changed
      continue;
    }
    const std::map<Key, int> before = counts(analyseText(path, text, true, options).findings);
    std::vector<TextEdit> accepted;
    std::vector<const Finding *> taken;
    for (const Finding *f : candidates) {
      const Fix &fix = f->fixes.front();
      // The same edits offered for two findings (RL202 and RL204 on one default): one fix.
      if (std::any_of(taken.begin(), taken.end(), [&](const Finding *t) { return sameEdits(t->fixes.front(), fix); })) {
        plan.chosen.push_back(*f);
        continue;
      }
      const int fixedSoFar = static_cast<int>(std::count_if(taken.begin(), taken.end(), [&](const Finding *t) {
        return t->rule == f->rule && t->anchor == f->anchor;
      }));
      std::vector<TextEdit> candidate;
      const Check check = fixHolds(*f, path, text, bom, before, accepted, fixedSoFar, options, candidate);
      if (check == Check::Overlaps) continue; // overlaps a chosen fix: the next run offers it again
      if (check == Check::Fails) {
        ++plan.rejected;
        continue;
      }
      accepted = std::move(candidate);
      taken.push_back(f);
      plan.chosen.push_back(*f);
    }
  }
  return plan;
}

namespace {

struct Line {
  size_t begin, end; // [begin, end) including the newline
};
std::vector<Line> linesOf(const std::string &text) {
  std::vector<Line> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back({at, end});
    at = end;
  }
  return out;
}

void emitLine(std::string &out, char mark, std::string_view line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

// The diff of one file from its edits: every edit covers whole old lines [first, last]; hunks
// merge edits less than seven lines apart and carry three lines of context.
std::string fileDiff(const std::string &path, const std::string &text, std::vector<TextEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](const TextEdit &a, const TextEdit &b) { return a.offset < b.offset; });
  const std::vector<Line> lines = linesOf(text);
  auto lineAt = [&](size_t offset) {
    auto it = std::upper_bound(lines.begin(), lines.end(), offset, [](size_t o, const Line &l) { return o < l.begin; });
    return it == lines.begin() ? size_t(0) : static_cast<size_t>(it - lines.begin() - 1);
  };
  struct Region {
    size_t first, last; // old lines, inclusive (first > last: an insertion at the end of a file)
    std::vector<TextEdit> edits;
  };
  std::vector<Region> regions;
  for (const TextEdit &e : edits) {
    size_t first = lines.empty() ? 0 : lineAt(e.offset);
    size_t last = e.length == 0 ? first : lineAt(e.offset + e.length - 1);
    if (lines.empty() || e.offset >= text.size()) first = last = lines.size(); // past the last line
    if (!regions.empty() && first <= regions.back().last + 1) {
      regions.back().last = std::max(regions.back().last, last);
      regions.back().edits.push_back(e);
    } else {
      regions.push_back({first, last, {e}});
    }
  }
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  long delta = 0;
  const size_t kContext = 3;
  for (size_t r = 0; r < regions.size();) {
    // Gather the regions of one hunk: their context would touch.
    size_t end = r + 1;
    while (end < regions.size() && regions[end].first <= regions[end - 1].last + 2 * kContext + 1) ++end;
    size_t from = regions[r].first >= kContext ? regions[r].first - kContext : 0;
    size_t to = std::min(lines.size(), regions[end - 1].last + 1 + kContext); // exclusive
    std::string body;
    size_t oldCount = 0, newCount = 0;
    size_t at = from;
    for (size_t k = r; k < end; ++k) {
      const Region &g = regions[k];
      for (; at < g.first && at < lines.size(); ++at, ++oldCount, ++newCount)
        emitLine(body, ' ', std::string_view(text).substr(lines[at].begin, lines[at].end - lines[at].begin));
      size_t lastOld = std::min(g.last, lines.empty() ? 0 : lines.size() - 1);
      bool hasOld = g.first < lines.size();
      size_t b = hasOld ? lines[g.first].begin : text.size();
      size_t e = hasOld ? lines[lastOld].end : text.size();
      std::string oldPart = text.substr(b, e - b);
      std::string newPart = oldPart;
      applyEdits(newPart, shifted(g.edits, -static_cast<std::ptrdiff_t>(b)));
      // Lines the edits left as they were are context, not a removal and an addition.
      std::vector<std::string_view> was, now;
      for (const Line &l : linesOf(oldPart)) was.push_back(std::string_view(oldPart).substr(l.begin, l.end - l.begin));
      for (const Line &l : linesOf(newPart)) now.push_back(std::string_view(newPart).substr(l.begin, l.end - l.begin));
      size_t head = 0, tail = 0;
      while (head < was.size() && head < now.size() && was[head] == now[head]) ++head;
      while (tail < was.size() - head && tail < now.size() - head && was[was.size() - 1 - tail] == now[now.size() - 1 - tail]) ++tail;
      for (size_t i = 0; i < head; ++i, ++oldCount, ++newCount) emitLine(body, ' ', was[i]);
      for (size_t i = head; i < was.size() - tail; ++i, ++oldCount) emitLine(body, '-', was[i]);
      for (size_t i = head; i < now.size() - tail; ++i, ++newCount) emitLine(body, '+', now[i]);
      for (size_t i = was.size() - tail; i < was.size(); ++i, ++oldCount, ++newCount) emitLine(body, ' ', was[i]);
      at = hasOld ? lastOld + 1 : lines.size();
    }
    for (; at < to; ++at, ++oldCount, ++newCount)
      emitLine(body, ' ', std::string_view(text).substr(lines[at].begin, lines[at].end - lines[at].begin));
    auto range = [](size_t start, size_t count) {
      // A hunk with no old (or new) lines names the line before it, as diff -u does.
      return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
    };
    out += "@@ -" + range(from, oldCount) + " +" + range(static_cast<size_t>(static_cast<long>(from) + delta), newCount) + " @@\n";
    out += body;
    delta += static_cast<long>(newCount) - static_cast<long>(oldCount);
    r = end;
  }
  return out;
}

} // namespace

std::string fixDiff(const std::vector<Finding> &chosen) {
  std::map<std::string, std::vector<const Fix *>> byPath;
  for (const Finding &f : chosen)
    if (!f.fixes.empty()) byPath[f.where.path].push_back(&f.fixes.front());
  std::string out;
  for (const auto &[path, fixes] : byPath) {
    std::string text;
    if (!readRegular(path, text)) continue;
    const size_t bom = bomLength(text);
    if (textDigest(std::string_view(text).substr(bom)) != fixes.front()->source_sha256) continue;
    std::vector<TextEdit> edits = combineFixes(text, bom, fixes);
    if (!edits.empty()) out += fileDiff(path, text, edits);
  }
  return out;
}

} // namespace retrylint
