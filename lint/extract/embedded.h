// Configuration texts embedded in another file (a ConfigMap's data block, a Terraform heredoc):
// read by every YAML/JSON dialect as a file of their own, and moved to where they stand.
#pragma once
#include <functional>
#include <string>

#include "lint/extract/yaml_util.h"

namespace retrylint {

// Reads `text`, whose first character is at 0-based (line0, column0) of cx.src and whose lines
// keep their columns shifted by column0 (a literal block, a heredoc), as a YAML or JSON file:
// within the nesting limit, by every dialect. The policies, problems and errors found are added to
// cx with their positions in cx.src; `where` names the place in messages and components ("ConfigMap
// default/c data.relay"), `anchor` prefixes the anchors. Fixes are dropped (their offsets are the
// inner text's). Returns whether any dialect recognised the text. `name`, when given, is the name
// the text would have as a file (a ConfigMap key: "nginx.conf"): a text dialect that claims a file
// of that name and text (NGINX, HAProxy, INI) reads it instead.
bool extractEmbedded(ExtractContext &cx, const std::string &text, bool json, int line0, int column0, const std::string &where,
                     const std::string &anchor, const std::string &name = "");
// The same, for a text whose positions map back by `place` (a translation that moves columns).
bool extractEmbedded(ExtractContext &cx, const std::string &text, bool json, const std::function<Span(Span)> &place,
                     const std::string &where, const std::string &anchor, const std::string &name = "");
// Whether a text dialect claims `text` as a file named `name`.
bool textDialectClaims(const std::string &name, const std::string &text);

} // namespace retrylint
