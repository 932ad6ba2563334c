// A reader of NGINX's configuration syntax that keeps positions, for the nginx.conf dialect.
//
// What it reads (nginx.org/en/docs/beginners_guide.html "Configuration File's Structure";
// ngx_conf_read_token in nginx/nginx src/core/ngx_conf_file.c): directives are words separated by
// blanks and ended by `;`, or followed by a `{ … }` block of directives; `#` at the start of a word
// comments out the rest of the line; '…' and "…" quote a word, `\` escapes the next character;
// `${name}` is part of a word.
//
// Templates of such files are read as far as they can be: `{{ … }}` (Jinja, Go, Helm), `<%= … %>`
// (ERB) and envsubst's `${NAME}` are words (or parts of one) whose value is unknown, marked
// `templated`; `{% … %}`, `{# … #}` and `<% … %>` statements are skipped, so both branches of a
// template's `if` are read. A template whose blocks do not balance once its statements are skipped
// is not NGINX's to judge: NginxConf::templated says so, and the caller stays quiet.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace retrylint {

struct NginxWord {
  std::string text;        // unquoted, escapes resolved
  size_t offset = 0;       // of the first character as written (a quote included)
  size_t length = 0;       // as written
  bool templated = false;  // holds a template expression: its value is not in the file
  bool variable = false;   // holds an NGINX variable ($host): known only per request
};

struct NginxDirective {
  std::vector<NginxWord> words;          // words[0] is the name
  bool block = false;                    // followed by { … }
  std::vector<NginxDirective> children;  // the block's directives
  const std::string &name() const { return words.front().text; }
};

struct NginxConf {
  std::vector<NginxDirective> directives;
  bool templated = false;  // a template marker was seen somewhere
};

struct NginxSyntaxError : std::runtime_error {
  size_t offset;
  bool templated; // the file holds template markers: a template, not a broken nginx.conf
  NginxSyntaxError(size_t o, bool t, const std::string &msg) : std::runtime_error(msg), offset(o), templated(t) {}
};

// Reads the whole text; throws NginxSyntaxError where it stops being NGINX syntax, and where blocks
// nest deeper than `maxDepth` (a hostile file must not exhaust the stack of those who walk the tree).
NginxConf parseNginxConf(std::string_view text, int maxDepth);

} // namespace retrylint
