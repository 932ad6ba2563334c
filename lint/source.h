// An input file's text with line offsets, to turn parser marks into spans.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/span.h"

namespace retrylint {

class SourceFile {
public:
  SourceFile(std::string path, std::string text);

  // Shared with every span made here (FilePath): reads as a const std::string&.
  const FilePath &path() const { return path_; }
  const std::string &text() const { return text_; }
  // 0-based line -> its text without the newline.
  std::string_view line(int zeroBasedLine) const;
  int lineCount() const { return static_cast<int>(starts_.size()); }
  // 0-based byte offset -> 1-based line/column span of `length` bytes on that line.
  Span spanAt(size_t offset, size_t length) const;
  // The span of a scalar whose first character is at 0-based (line, column): a quoted
  // scalar runs to its closing quote, a plain one to the end of `plainValue` when that
  // is what the line holds there.
  Span scalarSpan(int line0, int col0, std::string_view plainValue) const;
  // Span of one token inside a single-line scalar: offset counted within the value.
  Span tokenSpan(int line0, int col0, size_t offsetInValue, size_t length) const;

  // Byte offset of a 0-based line and column.
  size_t offsetOf(int line0, int col0) const;
  // Edits: replace a span's text, or insert a whole line after 0-based `line0`.
  TextEdit replace(const Span &span, std::string replacement) const;
  TextEdit insertLineAfter(int line0, std::string lineText) const;
  // Removes 0-based line `line0`, its line break included.
  TextEdit removeLine(int line0) const;
  // The leading spaces of a 0-based line.
  std::string indentOf(int line0) const;

private:
  FilePath path_;
  std::string text_;
  std::vector<size_t> starts_;
};

} // namespace retrylint
