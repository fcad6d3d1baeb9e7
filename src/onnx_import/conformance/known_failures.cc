#include "onnx_import/conformance/known_failures.h"

#include <fstream>
#include <sstream>

#include "base/text.h"
#include "loom/errors.h"

namespace loom::conformance {

KnownFailures ParseKnownFailures(std::string_view text, const std::string& label) {
  KnownFailures known;
  int line_number = 0;
  for (std::string_view raw : base::Split(text, '\n')) {
    ++line_number;
    const std::string_view line = base::Trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = label + ":" + std::to_string(line_number) + ": ";
    const size_t hash = line.find('#');
    const std::string_view id = base::Trim(line.substr(0, hash));
    const std::string_view reason =
        hash == std::string_view::npos ? std::string_view() : base::Trim(line.substr(hash + 1));
    if (reason.empty()) {
      throw InvalidArgumentError(where + "entry '" + std::string(id) +
                                 "' has no reason (write 'suite/case  # reason')");
    }
    // "suite/case", optionally followed by the marker "[may-pass]".
    const size_t blank = id.find_first_of(" \t");
    const std::string_view case_id = id.substr(0, blank);
    const std::string_view marker =
        blank == std::string_view::npos ? std::string_view() : base::Trim(id.substr(blank));
    const bool may_pass = marker == "[may-pass]";
    if (!marker.empty() && !may_pass && marker.front() == '[' &&
        marker.find_first_of(" \t") == std::string_view::npos) {
      throw InvalidArgumentError(where + "unknown marker '" + std::string(marker) +
                                 "' (the one marker is [may-pass])");
    }
    if ((!marker.empty() && !may_pass) || case_id.find('/') == std::string_view::npos ||
        case_id.front() == '/' || case_id.back() == '/') {
      throw InvalidArgumentError(where + "'" + std::string(id) +
                                 "' is not a case id like 'node/test_abs'");
    }
    if (!known.emplace(std::string(case_id), KnownFailure{std::string(reason), may_pass}).second) {
      throw InvalidArgumentError(where + "'" + std::string(case_id) + "' is listed twice");
    }
  }
  return known;
}

KnownFailures ReadKnownFailures(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgumentError("cannot open the known-failures list " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseKnownFailures(text.str(), path);
}

}  // namespace loom::conformance
