// `retrylint review --base REV`: what a change does to the retry posture, for a reviewer. The
// working tree and the base revision are analysed alike (the base's files written into a
// temporary directory), then compared: the findings introduced, fixed and unchanged, and for each
// policy and declared call chain the change touched its attempts, calls per request at the bottom,
// worst-case time, deadline, jitter, budget and simulated storm, before -> after.
#pragma once
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <llvm/Support/raw_ostream.h>

#include "lint/engine.h"
#include "lint/simulate/storm.h"

namespace retrylint {

// ---- the base revision's files (base_tree.cpp) ----------------------------------------------

struct BaseTree {
  std::string root;                 // a new temporary directory holding the files, with an empty .git
  std::vector<std::string> files;   // repository-relative paths written, sorted
  std::vector<std::string> skipped; // "path: why" for entries not written (too large, unsafe name)
  struct Entry {
    std::string path, oid;
  };
  std::vector<Entry> listing;       // the commit's regular files, read once
  bool listed = false;
};

// Writes the regular files of `commit` whose repository-relative path `want` accepts into
// tree.root (a new temporary directory when empty), without following or making links (a link in
// the tree is skipped) and refusing names with empty, "." or ".." components or a .git component.
// Files larger than `maxBytes` are skipped; a file already written is skipped. false with `error`
// when git fails (the caller removes the tree).
bool materialiseBase(const std::string &commit, const std::function<bool(const std::string &)> &want, uint64_t maxBytes,
                     BaseTree &tree, std::string &error);
void removeBaseTree(const BaseTree &tree);

// A repository-relative path git may hold but that must not be written: absolute, with an empty,
// "." or ".." component, or a .git component (any case).
bool unsafeTreePath(const std::string &path);

// ---- the comparison (compare.cpp) -------------------------------------------------------------

// One side's figures for a policy or chain. What is not known stays nullopt or "unknown".
struct Posture {
  bool attempts_known = false;
  std::optional<int> attempts;        // tries per call, first included; nullopt (known) = unbounded
  std::string attempts_text;          // "3", "3 (default)", "unbounded", "unknown"; a chain's "3 × 3 × 3"
  std::optional<double> calls;        // calls per request on the bottom layer; nullopt = unbounded or unknown
  bool calls_known = false;
  std::optional<Duration> worst_time; // one request when every attempt times out
  std::optional<Duration> deadline;
  int jitter_rank = -1;               // 0 none (or no wait), 1 proportional, 2 full; -1 unknown
  std::string jitter;                 // "none", "full", "±20 %", "no wait", "unknown"
  std::optional<bool> budget;
  std::optional<StormResult> storm;   // the simulated outage; nullopt when it cannot be simulated
  std::optional<StormResult> full_jitter; // the same layers with full jitter and a cap (for the picture)
  std::string full_jitter_label;      // "with full jitter and a 20 s cap"
  std::string not_simulated;          // why not
};

enum class Direction { Same, Better, Worse, Changed, Mixed, Added, Removed };
const char *directionName(Direction d);

struct PostureRow {
  std::string kind;  // "policy" or "chain"
  std::string title; // the policy's component, or the chain's "gateway > orders > db"
  std::string place; // "path:line" (after, else before)
  std::optional<Posture> before, after;
  Direction direction = Direction::Same;
  // Per figure, in the order of kFigures: how it moved.
  std::vector<Direction> moves;
};

// The figures of a row, in table order.
inline constexpr const char *kFigures[] = {"attempts", "calls per request at the bottom", "worst-case time", "deadline",
                                          "jitter", "budget", "storm"};

inline constexpr const char *kFigureKeys[] = {"attempts", "calls_at_bottom", "worst_case", "deadline", "jitter", "budget", "storm"};

struct FindingChange {
  const Finding *finding = nullptr; // the after side's (for "fixed", the before side's)
  std::string before_message;       // for "changed": the message the base gave
};

struct Review {
  std::string base_rev, base_commit;       // as asked, and the commit compared with (its merge base with HEAD)
  std::string base_rev_commit;             // the commit base_rev itself names
  std::vector<std::string> changed_files;  // analysed, display paths
  std::vector<FindingChange> introduced, fixed, changed;
  size_t unchanged = 0;
  std::vector<PostureRow> posture;         // touched chains first, then policies; worst first
  StormOptions storm;
  std::vector<Diagnostic> errors;          // of either side
  std::vector<std::string> notes;          // things a reviewer should know (files skipped in the base)
  RunResult before, after;                 // kept: the rows and findings point into them
  // The display paths whose findings and policies are reviewed (the given PATHs); files outside
  // them were read only for the declared chains through them.
  std::set<std::string> reviewed;
};

// Compares the two runs (their findings and models; chains by title, policies by path and anchor).
void compareRuns(Review &review, const StormOptions &storm);

// The touched row with the largest simulated storm after the change, or nullptr.
const PostureRow *worstStormRow(const Review &review);

// ---- the reports (markdown.cpp) -----------------------------------------------------------------

// Markdown for a pull-request comment, $GITHUB_STEP_SUMMARY or a GitLab merge-request note. Text
// from the files is escaped so that it cannot add links, mentions, HTML or table cells.
void writeReviewMarkdown(llvm::raw_ostream &os, const Review &review);
void writeReviewJson(llvm::raw_ostream &os, const Review &review);
// Text made inert in Markdown: every ASCII punctuation character a Markdown reader acts on is
// backslash-escaped, '@' cannot start a mention, line breaks become spaces.
std::string markdownText(std::string_view s);

// ---- the command (command.cpp) ----------------------------------------------------------------

struct ReviewRequest {
  std::string base;           // --base REV
  bool json = false;          // --format json, else Markdown
  std::string svg;            // --svg FILE: the storm of the worst touched policy or chain
  std::string output;         // -o FILE
  bool config_given = false;  // --config: the same config for both sides
  StormOptions storm;
  Severity fail_on = Severity::Warning;
};

// Runs the review. Exit code: 0, 1 when the change introduces a finding at or above fail_on, 2
// on a usage problem (not a repository, no such revision) or an input that could not be analysed.
int reviewCommand(const RunOptions &options, const ReviewRequest &req, llvm::raw_ostream &out, llvm::raw_ostream &err);

} // namespace retrylint
