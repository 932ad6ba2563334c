// The rule list: every rule, in code order. Adding a rule = one file in rules/ + one line here.
#include "rules/rule.h"

#include <cctype>

namespace retrylint {

extern const Rule kRL101, kRL102, kRL103, kRL104, kRL105;
extern const Rule kRL201, kRL202, kRL203, kRL204;
extern const Rule kRL301, kRL302, kRL303, kRL304;
extern const Rule kRL401, kRL402, kRL403, kRL404;
extern const Rule kRL501;
extern const Rule kRL601;
extern const Rule kRL901, kRL902;

const std::vector<const Rule *> &allRules() {
  static const std::vector<const Rule *> rules = {
      &kRL101, &kRL102, &kRL103, &kRL104, &kRL105, // backoff
      &kRL201, &kRL202, &kRL203, &kRL204, // attempts
      &kRL301, &kRL302, &kRL303, &kRL304, // time limits and budgets
      &kRL401, &kRL402, &kRL403, &kRL404, // what is retried
      &kRL501,                            // observability
      &kRL601,                            // composition with other mechanisms
      &kRL901, &kRL902,                   // configuration validity
  };
  return rules;
}

const Rule *findRule(std::string_view codeOrName) {
  for (const Rule *r : allRules()) {
    if (r->name == codeOrName) return r;
    if (r->code.size() == codeOrName.size()) {
      bool same = true;
      for (size_t i = 0; i < r->code.size(); ++i)
        same &= std::toupper(static_cast<unsigned char>(codeOrName[i])) == r->code[i];
      if (same) return r;
    }
  }
  return nullptr;
}

} // namespace retrylint
