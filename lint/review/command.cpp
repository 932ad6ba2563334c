// `retrylint review --base REV [PATH ...]`: which files to analyse on each side, the base's
// files written into a temporary directory, both runs, the comparison and the reports.
#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <set>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include "lint/discover/discover.h"
#include "lint/extract/extractors.h"
#include "lint/io/git.h"
#include "lint/io/write_file.h"
#include "lint/report/report.h"
#include "lint/review/review.h"
#include "lint/simulate/picture.h"

namespace retrylint {
namespace {

std::vector<std::string> nulSeparated(const std::string &out) {
  llvm::SmallVector<llvm::StringRef, 0> parts;
  llvm::StringRef(out).split(parts, '\0', -1, /*KeepEmpty=*/false);
  std::vector<std::string> v;
  for (llvm::StringRef p : parts) v.push_back(p.str());
  return v;
}

std::string realPath(const std::string &p) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(p, real)) return p;
  return real.str().str();
}

// `path` ('/'-separated, relative to the repository) as seen from `dir` (also relative to it).
std::string fromDir(const std::string &dir, const std::string &path) {
  if (dir.empty()) return path;
  llvm::SmallVector<llvm::StringRef, 16> d, p;
  llvm::StringRef(dir).split(d, '/', -1, false);
  llvm::StringRef(path).split(p, '/', -1, false);
  size_t common = 0;
  while (common < d.size() && common + 1 < p.size() && d[common] == p[common]) ++common;
  std::string out;
  for (size_t i = common; i < d.size(); ++i) out += "../";
  for (size_t i = common; i < p.size(); ++i) out += p[i].str() + (i + 1 < p.size() ? "/" : "");
  return out;
}

bool under(const std::string &scope, const std::string &rel) {
  return scope.empty() || rel == scope || llvm::StringRef(rel).startswith(scope + "/");
}

// Whether a file in the tree is one the walk would consider: a config's extension, in no folder
// the walk skips.
// A retrylint config (the nearest .retrylint.yaml, or a file another one extends).
bool configName(const std::string &rel) {
  llvm::StringRef name = llvm::sys::path::filename(rel);
  return name.contains("retrylint") && (name.endswith(".yaml") || name.endswith(".yml"));
}

bool declaresLayers(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (llvm::StringRef l : lines)
    if (l.startswith("layers:") || l.startswith("chains:")) return true;
  return false;
}

bool readSmall(const std::string &path, std::string &text) {
  auto b = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!b || (*b)->getBufferSize() > (1u << 20)) return false;
  text = (*b)->getBuffer().str();
  return true;
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  if (from.empty()) return;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

struct ScopeExit {
  std::function<void()> f;
  ~ScopeExit() {
    if (f) f();
  }
};

} // namespace

int reviewCommand(const RunOptions &options, const ReviewRequest &req, llvm::raw_ostream &out, llvm::raw_ostream &err) {
  auto fail = [&](const std::string &msg) {
    err << "retrylint review: " << msg << "\n";
    return 2;
  };
  std::string error;
  std::string top = io::gitTopLevel(error);
  if (top.empty()) return fail(error);
  top = realPath(top);
  const std::string commit = io::comparisonBase(req.base, error);
  if (commit.empty()) return fail("--base " + error);
  llvm::SmallString<256> cwdBuf;
  llvm::sys::fs::current_path(cwdBuf);
  const std::string cwd = realPath(cwdBuf.str().str());
  const std::string cwdRel = cwd == top ? std::string() : relativeTo(top, cwd);
  if (cwd != top && cwdRel.empty()) return fail("the current directory " + cwd + " is not inside the repository " + top);

  // What to review: the given paths (default: here), repository-relative.
  std::vector<std::string> scopes;
  for (const std::string &p : options.paths.empty() ? std::vector<std::string>{"."} : options.paths) {
    llvm::SmallString<256> abs(p);
    llvm::sys::fs::make_absolute(abs);
    llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
    std::string a = llvm::sys::fs::exists(abs) ? realPath(abs.str().str()) : abs.str().str();
    std::string rel = a == top ? std::string() : relativeTo(top, a);
    if (a != top && rel.empty()) return fail(p + " is not inside the repository " + top);
    scopes.push_back(rel);
  }
  auto inScope = [&](const std::string &rel) {
    return walkable(rel) && std::any_of(scopes.begin(), scopes.end(), [&](const std::string &s) { return under(s, rel); });
  };

  // The files the change touched (committed since the base, staged, unstaged, untracked), and
  // those the working tree holds; all repository-relative. Git is run from the top so `:/` and
  // the paths it prints agree.
  io::GitRun diff = io::runGit({"-C", top, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", commit, "--"});
  if (diff.status != 0) return fail("git diff " + commit + " failed" + (diff.err.empty() ? std::string() : ": " + diff.err));
  io::GitRun untracked = io::runGit({"-C", top, "ls-files", "-z", "--others", "--exclude-standard", "--full-name"});
  io::GitRun tracked = io::runGit({"-C", top, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name"});
  if (untracked.status != 0 || tracked.status != 0) return fail("git ls-files failed: " + untracked.err + tracked.err);
  std::set<std::string> changed;
  for (const std::string &f : nulSeparated(diff.out)) changed.insert(f);
  for (const std::string &f : nulSeparated(untracked.out)) changed.insert(f);
  std::set<std::string> working;
  for (const std::string &f : nulSeparated(tracked.out)) working.insert(f);

  // The base's configs first: whether either side declares layers decides what must be read.
  BaseTree base;
  ScopeExit cleanup{[&] { removeBaseTree(base); }};
  const uint64_t maxBytes = options.extract.max_file_bytes;
  if (!materialiseBase(commit, configName, maxBytes, base, error)) return fail(error);
  // Declared chains need every layer's files on both sides: under each config that declares
  // layers and applies to a changed file, every file is read; elsewhere the changed ones suffice.
  std::vector<std::string> layeredRoots;
  // A config's chains matter when the change touched a file under it and they pass through what is
  // reviewed (the config sits above it, or inside it).
  auto appliesToChange = [&](const std::string &dir) {
    return std::any_of(scopes.begin(), scopes.end(), [&](const std::string &s) { return under(dir, s) || under(s, dir); }) &&
           std::any_of(changed.begin(), changed.end(), [&](const std::string &f) { return under(dir, f); });
  };
  if (options.config && !options.config->layers.empty()) {
    std::string root = realPath(options.config->root);
    std::string rel = root == top ? std::string() : relativeTo(top, root);
    layeredRoots.push_back(root == top || !rel.empty() ? rel : std::string());
  }
  auto consider = [&](const std::string &treeRoot, const std::string &f) {
    if (llvm::sys::path::filename(f) != ".retrylint.yaml") return;
    std::string dir = llvm::sys::path::parent_path(f).str(), text;
    if (std::find(layeredRoots.begin(), layeredRoots.end(), dir) != layeredRoots.end() || !appliesToChange(dir)) return;
    if (readSmall(treeRoot + "/" + f, text) && declaresLayers(text)) layeredRoots.push_back(dir);
  };
  for (const std::string &f : base.files) consider(base.root, f);
  for (const std::string &f : working) consider(top, f);
  auto wanted = [&](const std::string &rel) {
    return (inScope(rel) && changed.count(rel)) ||
           (walkable(rel) && std::any_of(layeredRoots.begin(), layeredRoots.end(), [&](const std::string &r) { return under(r, rel); }));
  };
  if (!materialiseBase(commit, wanted, maxBytes, base, error)) return fail(error);
  // And what the extractors read beside them (the BUILD file of a GAPIC config, the SAM template
  // of a state machine), so that the base's files are read as they were.
  std::set<std::string> besides;
  for (const std::string &rel : base.files) {
    if (!wanted(rel)) continue;
    llvm::StringRef dir = llvm::sys::path::parent_path(rel);
    for (const std::string &name : extractionInputNamesBesides(rel)) {
      llvm::SmallString<256> p(dir);
      llvm::sys::path::append(p, llvm::sys::path::Style::posix, name);
      llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true, llvm::sys::path::Style::posix);
      besides.insert(p.str().str());
    }
  }
  if (!besides.empty() && !materialiseBase(commit, [&](const std::string &rel) { return besides.count(rel) > 0; }, maxBytes, base, error))
    return fail(error);

  Review review;
  review.base_rev = req.base;
  review.base_commit = commit;
  {
    io::GitRun own = io::runGit({"rev-parse", "--verify", "--quiet", req.base + "^{commit}"});
    review.base_rev_commit = own.status == 0 ? llvm::StringRef(own.out).trim().str() : commit;
  }
  for (const std::string &s : base.skipped) review.notes.push_back("not read from the base: " + s);

  // The working tree's side: regular files only (a link a change adds is not followed).
  std::vector<Candidate> afterFiles;
  for (const std::string &rel : working) {
    if (!wanted(rel)) continue;
    struct stat st;
    if (::lstat((top + "/" + rel).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    afterFiles.push_back(Candidate{fromDir(cwdRel, rel), false});
    if (inScope(rel)) review.reviewed.insert(afterFiles.back().path);
    if (changed.count(rel) && inScope(rel)) review.changed_files.push_back(afterFiles.back().path);
  }
  for (const std::string &rel : changed)
    if (inScope(rel) && !working.count(rel)) review.changed_files.push_back(fromDir(cwdRel, rel) + " (deleted)");
  RunOptions afterOptions = options;
  afterOptions.files = afterFiles;
  afterOptions.keep_models = true;
  review.after = run(afterOptions);

  // The base's side, run from the same place in the temporary tree so that paths read alike.
  std::vector<Candidate> beforeFiles;
  for (const std::string &rel : base.files)
    if (wanted(rel)) {
      beforeFiles.push_back(Candidate{fromDir(cwdRel, rel), false});
      if (inScope(rel)) review.reviewed.insert(beforeFiles.back().path);
    }
  RunOptions beforeOptions = options;
  beforeOptions.files = beforeFiles;
  beforeOptions.keep_models = true;
  if (!beforeOptions.extract.compile_commands_dir.empty()) {
    llvm::SmallString<256> abs(beforeOptions.extract.compile_commands_dir);
    llvm::sys::fs::make_absolute(abs);
    beforeOptions.extract.compile_commands_dir = abs.str().str();
  }
  const std::string baseCwd = cwdRel.empty() ? base.root : base.root + "/" + cwdRel;
  llvm::sys::fs::create_directories(baseCwd);
  if (std::error_code ec = llvm::sys::fs::set_current_path(baseCwd)) return fail("cannot enter " + baseCwd + ": " + ec.message());
  {
    ScopeExit back{[&] { llvm::sys::fs::set_current_path(cwd); }};
    std::vector<Diagnostic> configErrors;
    if (!req.config_given) {
      beforeOptions.config.reset();
      beforeOptions.settings = Settings{};
      std::string found = findProjectConfig(baseCwd);
      if (!found.empty()) beforeOptions.config = loadFoundConfig(found, configErrors);
      if (beforeOptions.config) beforeOptions.settings = beforeOptions.config->settings;
      if (options.cli_max_attempts) beforeOptions.settings.request.max_attempts = *options.cli_max_attempts;
    }
    for (const Diagnostic &d : configErrors)
      review.notes.push_back("the base's config " + (d.line ? d.path + ":" + std::to_string(d.line) : d.path) + ": " + d.message);
    // beforeOptions stays where it is while the resolver points into it.
    if (!req.config_given) beforeOptions.nested = std::make_shared<ConfigResolver>(beforeOptions.config ? &*beforeOptions.config : nullptr);
    review.before = run(beforeOptions);
  }
  // An input that could not be analysed matters to the change when the change touched it or the
  // base could analyse it; the rest were broken before and stay someone else's.
  std::set<std::string> touchedPaths;
  for (const std::string &rel : changed) touchedPaths.insert(fromDir(cwdRel, rel));
  std::set<std::pair<std::string, std::string>> brokenBefore;
  for (Diagnostic &d : review.before.errors) {
    replaceAll(d.path, base.root, top);
    replaceAll(d.message, base.root, top);
    brokenBefore.insert({d.path, d.message});
    if (touchedPaths.count(d.path))
      review.notes.push_back("the base's " + (d.line ? d.path + ":" + std::to_string(d.line) : d.path) + " could not be analysed: " + d.message);
  }
  for (const Diagnostic &d : review.after.errors)
    if (touchedPaths.count(d.path) || !brokenBefore.count({d.path, d.message})) review.errors.push_back(d);
  int64_t budget = kRunSimulationBudget;
  StormOptions storm = req.storm;
  storm.run_budget = &budget;
  compareRuns(review, storm);

  std::string writeError;
  auto write = [&](llvm::raw_ostream &os) {
    if (req.json) writeReviewJson(os, review);
    else writeReviewMarkdown(os, review);
  };
  if (req.output.empty() || req.output == "-") write(out);
  else if (!writeOutputFile(req.output, write, writeError)) return fail("cannot write " + req.output + ": " + writeError);

  if (!req.svg.empty()) {
    const PostureRow *worst = worstStormRow(review);
    if (!worst) {
      err << "retrylint review: no picture: the change touches no policy or chain that can be simulated\n";
    } else {
      StormPicture pic;
      pic.title = "Retry storm: " + worst->title + " (" + worst->place + ")";
      pic.clients = req.storm.clients;
      pic.outage_s = req.storm.outage_s;
      pic.series.push_back({"after the change", "configured", "#c0392b", *worst->after->storm});
      if (worst->before && worst->before->storm) pic.series.push_back({"before the change", "before", "#7f8c8d", *worst->before->storm});
      if (worst->after->full_jitter)
        pic.series.push_back({worst->after->full_jitter_label, "full-jitter", "#2471a3", *worst->after->full_jitter});
      if (!writeOutputFile(req.svg, [&](llvm::raw_ostream &os) { writeStormSvg(os, pic); }, writeError))
        return fail("cannot write " + req.svg + ": " + writeError);
    }
  }
  if (!review.errors.empty()) {
    RunResult shown;
    shown.errors = review.errors;
    writeErrorsText(err, shown, false);
    return 2;
  }
  for (const FindingChange &c : review.introduced)
    if (c.finding->severity >= req.fail_on) return 1;
  return 0;
}

} // namespace retrylint
