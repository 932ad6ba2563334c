#include "lint/extract/nginx_syntax.h"

#include <optional>

namespace retrylint {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

class Reader {
public:
  Reader(std::string_view t, int maxDepth) : t_(t), max_depth_(maxDepth) {}

  NginxConf read() {
    NginxConf conf;
    // An explicit stack of open blocks: the reader itself never recurses.
    std::vector<std::vector<NginxDirective> *> open{&conf.directives};
    std::vector<size_t> openedAt{0};
    std::vector<NginxWord> words;
    size_t wordsAt = 0;
    for (;;) {
      skipBlanksAndComments();
      if (i_ >= t_.size()) break;
      const char c = t_[i_];
      if (c == ';') {
        if (words.empty()) fail(i_, "unexpected \";\"");
        open.back()->push_back(NginxDirective{std::move(words), false, {}});
        words.clear();
        ++i_;
      } else if (c == '{' && !startsTemplate(i_)) {
        if (words.empty()) fail(i_, "unexpected \"{\"");
        if (static_cast<int>(open.size()) > max_depth_) fail(i_, "blocks nested deeper than " + std::to_string(max_depth_));
        open.back()->push_back(NginxDirective{std::move(words), true, {}});
        words.clear();
        open.push_back(&open.back()->back().children);
        openedAt.push_back(i_);
        ++i_;
      } else if (c == '}') {
        if (!words.empty()) fail(wordsAt, "directive \"" + words.front().text + "\" is not terminated by \";\"");
        if (open.size() == 1) fail(i_, "unexpected \"}\"");
        open.pop_back();
        openedAt.pop_back();
        ++i_;
      } else {
        if (words.empty()) wordsAt = i_;
        if (auto w = word()) words.push_back(std::move(*w));
      }
    }
    if (!words.empty()) fail(wordsAt, "directive \"" + words.front().text + "\" is not terminated by \";\"");
    if (open.size() > 1) fail(openedAt.back(), "unexpected end of file, expecting \"}\" for the block opened here");
    conf.templated = templated_;
    return conf;
  }

private:
  [[noreturn]] void fail(size_t at, const std::string &msg) { throw NginxSyntaxError(at, templated_ || seesTemplate(), msg); }

  // A marker later in the file still makes it a template (the error may come before the marker).
  bool seesTemplate() const {
    for (std::string_view m : {"{{", "{%", "{#", "<%"})
      if (t_.find(m) != std::string_view::npos) return true;
    return false;
  }

  void skipBlanksAndComments() {
    for (;;) {
      while (i_ < t_.size() && blank(t_[i_])) ++i_;
      if (i_ < t_.size() && t_[i_] == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') ++i_;
        continue;
      }
      // A template statement or comment on its own: skipped.
      if (startsStatement(i_)) {
        skipTemplate(i_);
        continue;
      }
      return;
    }
  }

  bool startsStatement(size_t at) const {
    std::string_view s = t_.substr(at);
    if (s.substr(0, 2) == "{%" || s.substr(0, 2) == "{#") return true;
    return s.substr(0, 2) == "<%" && s.substr(0, 3) != "<%=";
  }
  // A template expression or statement starting at `at`: its length, or npos when it does not close.
  size_t templateLength(size_t at) const {
    std::string_view s = t_.substr(at);
    std::string_view close = s.substr(0, 2) == "{{" ? "}}" : s.substr(0, 2) == "{%" ? "%}" : s.substr(0, 2) == "{#" ? "#}" : "%>";
    size_t end = s.find(close, 2);
    return end == std::string_view::npos ? std::string_view::npos : end + close.size();
  }
  bool startsTemplate(size_t at) const {
    std::string_view s = t_.substr(at, 2);
    return s == "{{" || s == "{%" || s == "{#" || s == "<%";
  }
  void skipTemplate(size_t at) {
    templated_ = true;
    size_t n = templateLength(at);
    if (n == std::string_view::npos) fail(at, "template expression is not closed");
    i_ = at + n;
  }

  // A template expression inside a word: kept as written, the word's value unknown.
  void appendTemplate(NginxWord &w) {
    size_t n = templateLength(i_);
    if (n == std::string_view::npos) fail(i_, "template expression is not closed");
    w.text.append(t_.substr(i_, n));
    w.templated = templated_ = true;
    i_ += n;
  }

  std::optional<NginxWord> word() {
    NginxWord w;
    w.offset = i_;
    const char q = t_[i_];
    if (q == '"' || q == '\'') {
      ++i_;
      for (;;) {
        if (i_ >= t_.size()) fail(w.offset, "unexpected end of file in a quoted string");
        char c = t_[i_];
        if (c == '\\' && i_ + 1 < t_.size()) {
          w.text += t_[i_ + 1];
          i_ += 2;
          continue;
        }
        if (c == q) {
          ++i_;
          break;
        }
        if (startsTemplate(i_)) {
          appendTemplate(w);
          continue;
        }
        if (c == '$') w.variable = true;
        w.text += c;
        ++i_;
      }
    } else {
      while (i_ < t_.size()) {
        char c = t_[i_];
        if (startsTemplate(i_)) {
          if (startsStatement(i_) && !w.text.empty()) break; // a statement right after a word
          if (startsStatement(i_)) {
            skipTemplate(i_);
            return std::nullopt;
          }
          appendTemplate(w);
          continue;
        }
        if (blank(c) || c == ';' || c == '{' || c == '}') break;
        if (c == '\\' && i_ + 1 < t_.size()) {
          w.text += t_[i_ + 1];
          i_ += 2;
          continue;
        }
        if (c == '$') {
          w.variable = true;
          if (i_ + 1 < t_.size() && t_[i_ + 1] == '{') { // ${name}: part of the word; envsubst's too
            size_t close = t_.find('}', i_);
            if (close == std::string_view::npos) fail(i_, "unexpected end of file in \"${\"");
            std::string_view name = t_.substr(i_ + 2, close - i_ - 2);
            // Upper-case names are envsubst's (the nginx image's templates): unknown, not per request.
            bool upper = !name.empty();
            for (char n : name) upper = upper && ((n >= 'A' && n <= 'Z') || (n >= '0' && n <= '9') || n == '_');
            if (upper) w.templated = templated_ = true;
            w.text.append(t_.substr(i_, close + 1 - i_));
            i_ = close + 1;
            continue;
          }
        }
        w.text += c;
        ++i_;
      }
    }
    w.length = i_ - w.offset;
    return w;
  }

  std::string_view t_;
  int max_depth_;
  size_t i_ = 0;
  bool templated_ = false;
};

} // namespace

NginxConf parseNginxConf(std::string_view text, int maxDepth) { return Reader(text, maxDepth).read(); }

} // namespace retrylint
