// --fix: apply the findings' mechanical fixes to the files, as minimal text edits, written so
// that a hostile checkout cannot turn the write against anything but the file being fixed.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lint/model/finding.h"

namespace retrylint {

struct FixSummary {
  size_t fixes_applied = 0;
  size_t files_changed = 0;
  std::vector<Diagnostic> errors; // files that were to be fixed and were not, and why
};

// Applies each finding's first fix, each file once however often or however it was named.
// Overlapping edits are skipped (the next run applies them). A file is written only when
//  - it is a regular file with one link: a symbolic link or a hard-linked file is refused
//    (writing would replace the link by a copy or split the links);
//  - it still holds exactly the text the fixes were computed on (Fix::source_sha256);
//  - it did not change between that check and the rename.
// The new text goes to a temporary file created exclusively (O_EXCL, O_NOFOLLOW, random name)
// in the file's own directory, with the file's mode and owner, then renamed over it; every
// write is checked, and on any failure the file is left as it was.
FixSummary applyFixes(const std::vector<Finding> &findings);

// Applies edits to a text (exposed for tests). Edits must not overlap, and no two may insert at
// the same offset (their order would be a guess); returns false otherwise.
bool applyEdits(std::string &text, std::vector<TextEdit> edits);

// Two fixes that make the same edits (one default offered by two rules): applied once.
bool sameEdits(const Fix &a, const Fix &b);

// The edits of `fixes` that go together on `text` (their offsets moved past a byte-order mark of
// `bom` bytes), in order: a fix that repeats a kept one's edits or overlaps them is left out (the
// next run offers it again). `taken`: how many fixes were kept.
std::vector<TextEdit> combineFixes(const std::string &text, size_t bom, const std::vector<const Fix *> &fixes,
                                   size_t *taken = nullptr);

// SHA-256 of a text, in hex.
std::string textDigest(std::string_view text);
// Records on every fix of `findings` the digest of the text its offsets point into.
void stampFixes(std::vector<Finding> &findings, std::string_view text);

} // namespace retrylint
