// Step Functions state machines in Terraform: `resource "aws_sfn_state_machine"` whose `definition`
// is a heredoc (`<<EOF` … `EOF`, or `<<-EOF` with its common indentation removed, as Terraform reads
// them: developer.hashicorp.com/terraform/language/expressions/strings#heredoc-strings). The heredoc
// holds the Amazon States Language JSON, read by the Step Functions dialect where it stands.
// Interpolations outside JSON strings (`"MaxAttempts": ${var.retries}`) are unknown values: each is
// read as `null` padded to its length, so the JSON still parses and the columns stay.
//
// Not read yet: `definition = jsonencode({ … })` (an HCL object, not JSON), `type = "EXPRESS"` of the
// same resource (the definition is judged as a Standard workflow), and `%{ }` template directives.
// A definition read through `templatefile("sfn.asl.json", …)` is its own file, which the Step
// Functions dialect reads as it is.
#include <algorithm>
#include <cctype>

#include "lint/extract/embedded.h"
#include "lint/extract/extractors.h"

namespace retrylint {
namespace {

constexpr std::string_view kFormat = "terraform-sfn";

bool recogniseText(const SourceFile &src) {
  return isFileKind(src.path().str(), {".tf"}) && src.text().find("aws_sfn_state_machine") != std::string_view::npos;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// `${ … }` outside JSON strings, as `null` and blanks of the same length.
void maskInterpolations(std::string &t) {
  bool inString = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (inString) {
      if (t[i] == '\\') ++i;
      else if (t[i] == '"') inString = false;
      continue;
    }
    if (t[i] == '"') {
      inString = true;
    } else if (t[i] == '$' && i + 1 < t.size() && t[i + 1] == '{') {
      size_t j = i + 2;
      int depth = 1;
      while (j < t.size() && depth > 0 && t[j] != '\n') depth += t[j] == '{' ? 1 : t[j] == '}' ? -1 : 0, ++j;
      if (depth != 0 || j - i < 4) continue;
      for (size_t k = i; k < j; ++k) t[k] = ' ';
      t.replace(i, 4, "null");
      i = j - 1;
    }
  }
}

void extractText(const SourceFile &src, ExtractContext &cx) {
  std::string resource; // the aws_sfn_state_machine being read, "" outside one
  for (int l = 0; l < src.lineCount(); ++l) {
    std::string_view line = trim(src.line(l));
    if (line.rfind("resource", 0) == 0) {
      resource.clear();
      size_t a = line.find("\"aws_sfn_state_machine\"");
      if (a != std::string_view::npos) {
        size_t q1 = line.find('"', a + 23), q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
        resource = q2 == std::string_view::npos ? "(unnamed)" : std::string(line.substr(q1 + 1, q2 - q1 - 1));
      }
      continue;
    }
    if (resource.empty() || line.rfind("definition", 0) != 0) continue;
    size_t eq = line.find('='), hd = line.find("<<");
    if (eq == std::string_view::npos || hd == std::string_view::npos || hd < eq) continue;
    std::string_view marker = line.substr(hd + 2);
    const bool indented = !marker.empty() && marker.front() == '-';
    if (indented) marker.remove_prefix(1);
    marker = trim(marker);
    if (marker.empty() || !std::all_of(marker.begin(), marker.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; })) continue;
    // The heredoc's lines, up to the marker alone on a line.
    int first = l + 1, last = first;
    while (last < src.lineCount() && trim(src.line(last)) != marker) ++last;
    if (last >= src.lineCount()) return; // no end: Terraform refuses the file; nothing to place
    size_t strip = 0;
    if (indented) {
      strip = std::string::npos;
      for (int k = first; k < last; ++k) {
        std::string_view t = src.line(k);
        if (trim(t).empty()) continue;
        strip = std::min(strip, t.find_first_not_of(" \t"));
      }
      if (strip == std::string::npos) strip = 0;
    }
    std::string text;
    for (int k = first; k < last; ++k) {
      std::string_view t = src.line(k);
      if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
      text += std::string(t.size() > strip ? t.substr(strip) : std::string_view()) + "\n";
    }
    maskInterpolations(text);
    extractEmbedded(cx, text, /*json=*/true, first, static_cast<int>(strip), "aws_sfn_state_machine." + resource + " definition",
                    "terraform/aws_sfn_state_machine/" + resource);
    l = last;
  }
}

} // namespace

namespace {
const Extractor &terraformSfnExtractor() {
  static const Extractor e{
      .format = kFormat,
      .recogniseText = recogniseText,
      .extractText = extractText,
      .priority = 150,
      .file_kinds = {".tf"},
  };
  return e;
}
const ExtractorRegistration registered(&terraformSfnExtractor);
} // namespace

} // namespace retrylint
