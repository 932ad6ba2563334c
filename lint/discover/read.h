// Reading what discovery found, within the limits: regular files only (a FIFO or device is never
// opened, nor a link met while walking followed), at most --max-file-size bytes.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/discover/discover.h"
#include "lint/model/finding.h"

namespace retrylint {

// Reads candidate `c` into `text`. Returns false when not read: with an error when it matters (a
// named file that cannot be read, or one over the limit; a walked file over the limit whose first
// 64 KiB `looksLikeRetryConfig`), else perhaps a warning (a walked file over the limit that does
// not), so that no file is skipped without a word.
bool readCandidate(const Candidate &c, uint64_t maxBytes, const std::function<bool(std::string_view head)> &looksLikeRetryConfig,
                   std::string &text, std::vector<Diagnostic> &errors, std::vector<Diagnostic> *warnings = nullptr);

} // namespace retrylint
