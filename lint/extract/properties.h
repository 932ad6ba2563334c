// A Java `.properties` reader that keeps positions, for the Spring Boot dialects.
//
// Syntax as java.util.Properties#load reads it: `key=value`, `key: value` and `key value`;
// comment lines start with `#` or `!`; a line ending in an odd number of backslashes continues
// on the next line (leading whitespace of the continuation dropped); `\t`, `\n`, `\uXXXX` and
// `\=`-style escapes. Spring Boot adds list indices (`retryExceptions[0]=...`), which the
// Spring tree (spring_tree.h) turns into lists.
#pragma once
#include <string>
#include <vector>

#include "lint/source.h"

namespace retrylint {

struct PropertyEntry {
  std::string key;    // unescaped
  std::string value;  // unescaped, continuation lines joined
  Span keyWhere;      // the key as written
  Span valueWhere;    // the value's first line (to its end when it is one line)
  int line0 = 0;      // 0-based line of the key
  int lastLine0 = 0;  // 0-based line the entry ends on (continuations)
  int valueCol0 = 0;  // 0-based column of the value's first character
  bool singleLine = true;
  bool escaped = false; // the value held escapes, so columns inside it are approximate
};

std::vector<PropertyEntry> readProperties(const SourceFile &src);

} // namespace retrylint
