#include "onnx_import/conformance/known_failures.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "base/text.h"
#include "loom/errors.h"

namespace loom::conformance {
namespace {

// The blank-separated words of `text`.
std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

}  // namespace

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
    // "suite/case" or "suite/case [may-pass]".
    const std::vector<std::string_view> words = Words(id);
    const bool may_pass = words.size() == 2 && words[1] == "[may-pass]";
    const std::string_view case_id = words.empty() ? id : words[0];
    if (words.size() > 2 || (words.size() == 2 && !may_pass) || case_id.empty() ||
        case_id.find('/') == std::string_view::npos || case_id.front() == '/' ||
        case_id.back() == '/') {
      if (words.size() == 2 && words[1].front() == '[') {
        throw InvalidArgumentError(where + "unknown marker '" + std::string(words[1]) +
                                   "' (the one marker is [may-pass])");
      }
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
