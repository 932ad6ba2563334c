// A limit checked before any recursive parser sees a text: how deep its nesting can go.
#pragma once
#include <string_view>

namespace retrylint {

// An over-estimate of the nesting depth of a YAML/JSON text: indentation levels of block
// collections (`- - -` on one line counts one per dash) plus the open brackets of flow collections.
int nestingDepth(std::string_view text);

} // namespace retrylint
