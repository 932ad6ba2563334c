#include "lint/suppress/changed_lines.h"

#include "lint/io/git.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include <tuple>

namespace retrylint {

std::string absolutePath(const std::string &path) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  return abs.str().str();
}

std::string diffHeaderPath(std::string_view field) {
  if (field.empty() || field[0] != '"') return std::string(field.substr(0, field.find('\t'))); // `path<TAB>date`
  // Git's C-style quoting: \" \\ \a \b \t \n \v \f \r, and \ooo for any other byte.
  std::string out;
  for (size_t i = 1; i < field.size() && field[i] != '"'; ++i) {
    if (field[i] != '\\' || i + 1 >= field.size()) {
      out += field[i];
      continue;
    }
    char e = field[++i];
    switch (e) {
    case 'a': out += '\a'; break;
    case 'b': out += '\b'; break;
    case 't': out += '\t'; break;
    case 'n': out += '\n'; break;
    case 'v': out += '\v'; break;
    case 'f': out += '\f'; break;
    case 'r': out += '\r'; break;
    default:
      if (e >= '0' && e <= '7') {
        unsigned v = 0;
        for (int n = 0; n < 3 && i < field.size() && field[i] >= '0' && field[i] <= '7'; ++n, ++i) v = v * 8 + (field[i] - '0');
        --i;
        out += static_cast<char>(v & 0xff);
      } else {
        out += e; // \" and \\, and any escape git does not write, taken as the character
      }
    }
  }
  return out;
}

namespace {
// `@@ -a[,b] +c[,d] @@`: the old and new line counts and the first new line.
bool parseHunkHeader(llvm::StringRef line, int &oldCount, int &newStart, int &newCount) {
  if (!line.consume_front("@@ -")) return false;
  unsigned a = 0, b = 1, c = 0, d = 1;
  if (line.consumeInteger(10, a)) return false;
  if (line.consume_front(",") && line.consumeInteger(10, b)) return false;
  if (!line.consume_front(" +") || line.consumeInteger(10, c)) return false;
  if (line.consume_front(",") && line.consumeInteger(10, d)) return false;
  if (!line.startswith(" @@")) return false;
  constexpr unsigned kMax = 1u << 30;
  if (b > kMax || c > kMax || d > kMax) return false;
  oldCount = static_cast<int>(b);
  newStart = static_cast<int>(c);
  newCount = static_cast<int>(d);
  return true;
}
} // namespace

namespace {
// `path` (absolute, normalised) lies below `dir`.
bool below(llvm::StringRef dir, llvm::StringRef path) {
  dir = dir.rtrim('/');
  return path.size() > dir.size() + 1 && path.startswith(dir) && path[dir.size()] == '/';
}
} // namespace

ChangedLines parseUnifiedDiff(const std::string &diff, const std::string &baseDir) {
  ChangedLines out;
  const std::string base = absolutePath(baseDir);
  std::vector<std::pair<int, int>> *current = nullptr; // ranges of the file the hunks are for
  auto setFile = [&](const std::string &p) {
    llvm::SmallString<256> full(base);
    llvm::sys::path::append(full, p);
    std::string abs = absolutePath(full.str().str());
    // A header naming `../elsewhere` or an absolute path is no file of this tree: its hunks are
    // skipped, so a patch cannot make retrylint read outside the directory it diffs.
    current = below(base, abs) ? &out[abs] : nullptr; // a changed file, even if only lines were removed
  };
  // Inside a hunk, its header says how many old and new lines follow: a line is a file header
  // (`+++ path`) only outside a hunk, so an added line `++ x` (written `+++ x`) stays an added line.
  int oldLeft = 0, newLeft = 0, newLine = 0;
  llvm::StringRef rest(diff);
  while (!rest.empty()) {
    llvm::StringRef line;
    std::tie(line, rest) = rest.split('\n');
    if (line.endswith("\r")) line = line.drop_back();
    if (oldLeft > 0 || newLeft > 0) {
      char c = line.empty() ? ' ' : line[0]; // an empty line: a context line whose space was stripped
      if (c == '+' && newLeft > 0) {
        --newLeft;
        if (current) {
          if (!current->empty() && current->back().second == newLine - 1) current->back().second = newLine;
          else current->push_back({newLine, newLine});
        }
        ++newLine;
        continue;
      }
      if (c == '-' && oldLeft > 0) {
        --oldLeft;
        continue;
      }
      if (c == ' ' && oldLeft > 0 && newLeft > 0) {
        --oldLeft, --newLeft, ++newLine;
        continue;
      }
      if (c == '\\') continue; // "\ No newline at end of file"
      oldLeft = newLeft = 0;   // the counts were wrong: read on as headers
    }
    if (line.startswith("+++ ")) {
      std::string p = diffHeaderPath(line.drop_front(4));
      if (p == "/dev/null") current = nullptr; // deleted
      else setFile(llvm::StringRef(p).startswith("b/") ? p.substr(2) : p);
    } else if (line.startswith("rename to ")) {
      setFile(diffHeaderPath(line.drop_front(10))); // a rename, perhaps with no hunk at all
    } else if (line.startswith("diff ")) {
      current = nullptr; // the next file's headers follow
    } else if (int oldCount, newStart, newCount; parseHunkHeader(line, oldCount, newStart, newCount)) {
      oldLeft = oldCount;
      newLeft = newCount;
      newLine = newStart;
    }
  }
  return out;
}

std::vector<std::string> changedFilesToLint(const ChangedLines &changed, const std::string &baseDir,
                                            std::vector<std::string> &notFollowed) {
  const std::string base = absolutePath(baseDir);
  std::vector<std::string> out;
  for (const auto &entry : changed) {
    const std::string &file = entry.first;
    if (!below(base, file)) continue;
    // Every component from the file up to the base must be there and not a link: a link the
    // change adds could point anywhere on the machine.
    bool plain = true, there = true;
    for (llvm::StringRef p = file; plain && below(base, p); p = llvm::sys::path::parent_path(p)) {
      llvm::sys::fs::file_status st;
      if (llvm::sys::fs::status(p, st, /*follow=*/false)) there = false;
      else if (st.type() == llvm::sys::fs::file_type::symlink_file) plain = false;
      if (!there) break;
    }
    if (!there) continue; // deleted: nothing to lint
    if (plain) out.push_back(file);
    else notFollowed.push_back(file);
  }
  return out;
}

std::optional<ChangedLines> gitChangedLines(const std::string &rev, std::string &top, std::string &error) {
  // A revision is never an option: `--diff --output=FILE` must not reach git as one.
  if (!io::plausibleRevision(rev)) {
    error = "--diff '" + rev + "': a git revision cannot start with '-'";
    return std::nullopt;
  }
  top = io::gitTopLevel(error);
  if (top.empty()) {
    error = "--diff: " + error;
    return std::nullopt;
  }
  std::string base = io::comparisonBase(rev, error);
  if (base.empty()) {
    error = "--diff " + error;
    return std::nullopt;
  }
  // `--text`: a `.gitattributes` of the change (`*.yaml -diff`, `binary`) must not hide its hunks;
  // explicit prefixes, so that no setting of the user's renames the paths parseUnifiedDiff reads.
  io::GitRun d = io::runGit({"diff", "--no-ext-diff", "--no-textconv", "--text", "--no-color", "--unified=0",
                             "--src-prefix=a/", "--dst-prefix=b/", base, "--"});
  if (d.status != 0) {
    error = "--diff " + rev + ": git diff failed: " + d.err;
    return std::nullopt;
  }
  return parseUnifiedDiff(d.out, top);
}

bool touchedBy(const ChangedLines &changed, const Finding &f) {
  if (onChangedLine(changed, f.where.path, f.where.line)) return true;
  if (f.reads.empty()) return false;
  auto it = changed.find(absolutePath(f.where.path));
  if (it == changed.end()) return false;
  for (auto [from, to] : f.reads)
    for (auto [a, b] : it->second)
      if (from <= b && to >= a) return true;
  return false;
}

bool onChangedLine(const ChangedLines &changed, const std::string &path, int line) {
  auto it = changed.find(absolutePath(path));
  if (it == changed.end()) return false;
  for (auto [a, b] : it->second)
    if (line >= a && line <= b) return true;
  return false;
}

} // namespace retrylint
