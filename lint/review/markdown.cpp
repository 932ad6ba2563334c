// The review as Markdown (a pull-request comment, $GITHUB_STEP_SUMMARY, a GitLab note) and JSON.
#include <algorithm>
#include <cstdio>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/JSON.h>

#include "lint/report/finding_json.h"
#include "lint/report/report.h"
#include "lint/review/review.h"
#include "rules/rule.h"

namespace retrylint {

std::string markdownText(std::string_view raw) {
  // Valid UTF-8, with control characters (ESC, BEL, C1 …) shown as \xNN, before Markdown's own
  // escapes: a file name or value from the checkout can neither break the comment's encoding nor
  // reach a terminal or a renderer as a control.
  std::string flat(raw);
  std::replace_if(flat.begin(), flat.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  const std::string s = escapeControls(validUtf8(flat));
  auto startsAt = [&](size_t i, std::string_view w) {
    return s.size() - i >= w.size() && llvm::StringRef(s).substr(i, w.size()).equals_insensitive(llvm::StringRef(w.data(), w.size()));
  };
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
    case '\\': case '`': case '*': case '_': case '{': case '}': case '[': case ']': case '<': case '>':
    case '(': case ')': case '#': case '+': case '-': case '!': case '|': case '~': case '&': case '=':
    case '$':
      out += '\\';
      out += c;
      break;
    case '@':
      out += "@&#8203;"; // a zero-width space: no mention, no notification
      break;
    case ':':
      // `https://…` and `www.…` become links in GitHub's Markdown whatever the escapes: a
      // zero-width space after the scheme's colon, or in `www.`, keeps them text.
      out += c;
      if (startsAt(i + 1, "//")) out += "&#8203;";
      break;
    default:
      out += c;
      if ((c == 'w' || c == 'W') && startsAt(i, "www.") && (i == 0 || !llvm::isAlnum(s[i - 1]))) {
        out += s.substr(i + 1, 2);
        out += "&#8203;";
        i += 2;
      }
    }
  }
  return out;
}

namespace {

std::string thousands(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  std::string s = buf, o;
  size_t start = s[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > start && (s.size() - i) % 3 == 0) o += ',';
    o += s[i];
  }
  return o;
}

std::string times(double amplification) {
  char buf[32];
  std::snprintf(buf, sizeof buf, amplification < 10 ? "%.1f×" : "%.0f×", amplification);
  return buf;
}

std::string durationText(std::optional<Duration> d, const char *none) {
  if (!d) return none;
  return *d >= Duration::s(1) ? formatSeconds(*d) : formatDuration(*d);
}

// The text of figure i of one side, for the table.
std::string figureText(const Posture &p, size_t i) {
  switch (i) {
  case 0: return p.attempts_text;
  case 1: return !p.calls_known ? "unknown" : p.calls ? thousands(*p.calls) : "unbounded";
  case 2: return durationText(p.worst_time, "unknown");
  case 3: return durationText(p.deadline, "none");
  case 4: return p.jitter;
  case 5: return !p.budget ? "—" : *p.budget ? "yes" : "no";
  case 6: return p.storm ? times(p.storm->amplification) : "not simulated";
  }
  return "";
}

std::string cell(const PostureRow &r, size_t i) {
  std::string b = r.before ? figureText(*r.before, i) : "—", a = r.after ? figureText(*r.after, i) : "—";
  if (!r.before) return markdownText(a);
  if (!r.after) return markdownText(b) + " → —";
  if (b == a) return markdownText(a);
  Direction d = i < r.moves.size() ? r.moves[i] : Direction::Changed;
  std::string text = markdownText(b) + " → " + markdownText(a);
  if (d == Direction::Worse) return text + " **worse**";
  if (d == Direction::Better) return text + " better";
  return text;
}

std::string directionCell(Direction d) {
  switch (d) {
  case Direction::Worse: return "**worse**";
  case Direction::Mixed: return "**mixed**";
  case Direction::Added: return "new";
  case Direction::Removed: return "removed";
  case Direction::Better: return "better";
  case Direction::Changed: return "changed";
  case Direction::Same: return "unchanged";
  }
  return "";
}

std::string findingLine(const Finding &f) {
  std::string uri;
  if (const Rule *rule = findRule(f.rule)) uri = ruleHelpUri(*rule);
  std::string code = uri.empty() ? "`" + f.rule + "`" : "[`" + f.rule + "`](" + uri + ")";
  return "- **" + std::string(severityName(f.severity)) + "** " + code + " " +
         markdownText(f.where.path.str() + ":" + std::to_string(f.where.line) + ":" + std::to_string(f.where.column)) + ": " +
         markdownText(f.message);
}

// The row whose simulated storm is the largest after the change (chains before policies on a tie).
const PostureRow *worstStorm(const Review &r) {
  const PostureRow *worst = nullptr;
  for (const PostureRow &row : r.posture)
    if (row.after && row.after->storm && (!worst || row.after->storm->amplification > worst->after->storm->amplification))
      worst = &row;
  return worst;
}

size_t countAtLeast(const std::vector<FindingChange> &list, Severity s) {
  size_t n = 0;
  for (const FindingChange &c : list) n += c.finding->severity >= s;
  return n;
}

std::string plural(size_t n, const char *one, const char *many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

} // namespace

const PostureRow *worstStormRow(const Review &r) { return worstStorm(r); }

void writeReviewMarkdown(llvm::raw_ostream &os, const Review &r) {
  os << "### retrylint review\n\n";
  if (r.base_rev_commit == r.base_commit) os << "Compared with " << markdownText(r.base_rev) << " (`" << r.base_commit.substr(0, 12) << "`)";
  else os << "Compared with `" << r.base_commit.substr(0, 12) << "`, the merge base of " << markdownText(r.base_rev) << " and HEAD";
  os << ": " << plural(r.changed_files.size(), "changed file", "changed files") << " analysed.\n\n";
  os << "**Findings:** " << r.introduced.size() << " introduced, " << r.fixed.size() << " fixed, " << r.changed.size()
     << " changed, " << r.unchanged << " unchanged.\n\n";

  if (const PostureRow *w = worstStorm(r)) {
    const StormResult &a = *w->after->storm;
    os << "> **Storm after the change** (" << w->kind << " " << markdownText(w->title) << "): when the failing service answers errors for "
       << markdownText(formatDuration(Duration::s(r.storm.outage_s))) << ", " << thousands(r.storm.clients) << " requests become **"
       << thousands(static_cast<double>(a.calls)) << (a.truncated ? "+" : "") << " calls** on it (" << times(a.amplification) << ")";
    if (w->before && w->before->storm)
      os << "; before the change " << thousands(static_cast<double>(w->before->storm->calls)) << " ("
         << times(w->before->storm->amplification) << ")";
    else if (!w->before)
      os << "; it is new in this change";
    os << ".\n\n";
  }

  if (!r.posture.empty()) {
    os << "#### Retry posture, before → after\n\n| | policy or chain |";
    for (const char *f : kFigures) os << " " << f << " |";
    os << "\n|---|---|";
    for (size_t i = 0; i < std::size(kFigures); ++i) os << "---|";
    os << "\n";
    for (const PostureRow &row : r.posture) {
      os << "| " << directionCell(row.direction) << " | " << row.kind << " " << markdownText(row.title) << "<br>"
         << markdownText(row.place) << " |";
      for (size_t i = 0; i < std::size(kFigures); ++i) os << " " << cell(row, i) << " |";
      os << "\n";
    }
    os << "\nAttempts count the first try. Calls per request at the bottom multiply the attempts of every layer. "
          "The worst-case time is one request when every attempt times out. Storm: calls reaching the failing "
          "service per request when "
       << thousands(r.storm.clients) << " clients fail together and the outage lasts "
       << markdownText(formatDuration(Duration::s(r.storm.outage_s))) << " (`retrylint simulate`).\n\n";
  } else {
    os << "The change does not move any retry policy's attempts, waits, deadline, jitter or budget.\n\n";
  }

  auto list = [&](const char *title, const std::vector<FindingChange> &items, bool serious, bool withBefore) {
    std::vector<const FindingChange *> shown;
    for (const FindingChange &c : items)
      if ((c.finding->severity >= Severity::Warning) == serious) shown.push_back(&c);
    if (shown.empty()) return;
    if (serious) os << "#### " << title << " (" << shown.size() << ")\n\n";
    else os << "<details><summary>" << title << " (" << shown.size() << ")</summary>\n\n";
    for (const FindingChange *c : shown) {
      os << findingLine(*c->finding);
      if (withBefore) os << " (before: " << markdownText(c->before_message) << ")";
      os << "\n";
    }
    os << (serious ? "\n" : "\n</details>\n\n");
  };
  list("Introduced", r.introduced, true, false);
  list("Changed", r.changed, true, true);
  list("Introduced notes", r.introduced, false, false);
  list("Changed notes", r.changed, false, true);
  if (!r.fixed.empty()) {
    os << "<details><summary>Fixed (" << r.fixed.size() << ")</summary>\n\n";
    for (const FindingChange &c : r.fixed) os << findingLine(*c.finding) << "\n";
    os << "\n</details>\n\n";
  }
  if (!r.errors.empty()) {
    os << "#### Could not be analysed (" << r.errors.size() << ")\n\n";
    for (const Diagnostic &d : r.errors)
      os << "- " << markdownText(d.path + (d.line ? ":" + std::to_string(d.line) : std::string()) + ": " + d.message) << "\n";
    os << "\n";
  }
  for (const std::string &n : r.notes) os << "- " << markdownText(n) << "\n";
  if (!r.notes.empty()) os << "\n";
  os << "<sub>retrylint " << RETRYLINT_VERSION << " · " << plural(countAtLeast(r.introduced, Severity::Warning), "warning or error", "warnings or errors")
     << " introduced</sub>\n";
}

namespace {

void postureJson(llvm::json::OStream &j, const Posture &p) {
  j.object([&] {
    j.attribute("attempts", p.attempts_text);
    if (p.calls_known && p.calls) j.attribute("calls_at_bottom", *p.calls);
    else j.attribute("calls_at_bottom", p.calls_known ? "unbounded" : "unknown");
    if (p.worst_time) j.attribute("worst_case_s", p.worst_time->seconds());
    else j.attribute("worst_case_s", nullptr);
    if (p.deadline) j.attribute("deadline_s", p.deadline->seconds());
    else j.attribute("deadline_s", nullptr);
    j.attribute("jitter", p.jitter);
    if (p.budget) j.attribute("budget", *p.budget);
    else j.attribute("budget", nullptr);
    if (p.storm)
      j.attributeObject("storm", [&] {
        j.attribute("calls", p.storm->calls);
        j.attribute("amplification", p.storm->amplification);
        j.attribute("calls_during_outage", p.storm->during_outage);
        j.attribute("last_call_s", p.storm->last_call_s);
        j.attribute("requests_failed", p.storm->gave_up);
        j.attribute("truncated", p.storm->truncated);
      });
    else j.attribute("not_simulated", p.not_simulated);
  });
}

} // namespace

void writeReviewJson(llvm::raw_ostream &os, const Review &r) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("version", 1);
    j.attributeObject("base", [&] {
      j.attribute("rev", validUtf8(r.base_rev));
      j.attribute("commit", r.base_commit);
      j.attribute("merge_base", r.base_rev_commit != r.base_commit);
    });
    j.attributeArray("files", [&] {
      for (const std::string &f : r.changed_files) j.value(validUtf8(f));
    });
    j.attributeObject("storm", [&] {
      j.attribute("clients", r.storm.clients);
      j.attribute("outage_s", r.storm.outage_s);
      j.attribute("seed", static_cast<int64_t>(r.storm.seed));
    });
    j.attributeObject("findings", [&] {
      j.attributeArray("introduced", [&] {
        for (const FindingChange &c : r.introduced) writeFindingJson(j, *c.finding);
      });
      j.attributeArray("changed", [&] {
        for (const FindingChange &c : r.changed)
          j.object([&] {
            j.attribute("before_message", validUtf8(c.before_message));
            j.attributeBegin("after");
            writeFindingJson(j, *c.finding);
            j.attributeEnd();
          });
      });
      j.attributeArray("fixed", [&] {
        for (const FindingChange &c : r.fixed) writeFindingJson(j, *c.finding);
      });
      j.attribute("unchanged", static_cast<int64_t>(r.unchanged));
    });
    j.attributeArray("posture", [&] {
      for (const PostureRow &row : r.posture)
        j.object([&] {
          j.attribute("kind", row.kind);
          j.attribute("title", validUtf8(row.title));
          j.attribute("place", validUtf8(row.place));
          j.attribute("direction", directionName(row.direction));
          j.attributeBegin("before");
          if (row.before) postureJson(j, *row.before);
          else j.value(nullptr);
          j.attributeEnd();
          j.attributeBegin("after");
          if (row.after) postureJson(j, *row.after);
          else j.value(nullptr);
          j.attributeEnd();
          if (!row.moves.empty())
            j.attributeObject("moves", [&] {
              for (size_t i = 0; i < row.moves.size() && i < std::size(kFigures); ++i) j.attribute(kFigureKeys[i], directionName(row.moves[i]));
            });
        });
    });
    j.attributeArray("errors", [&] {
      for (const Diagnostic &d : r.errors)
        j.object([&] {
          j.attribute("path", validUtf8(d.path));
          j.attribute("line", d.line);
          j.attribute("message", validUtf8(d.message));
        });
    });
    j.attributeArray("notes", [&] {
      for (const std::string &n : r.notes) j.value(validUtf8(n));
    });
  });
  os << "\n";
}

} // namespace retrylint
