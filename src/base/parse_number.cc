#include "base/parse_number.h"

#include <charconv>

namespace loom::base {

std::optional<int64_t> ParseInt64(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  const char* end = text.data() + text.size();
  // from_chars accepts a leading '-' but not '+' or whitespace, which is the
  // strictness we want; it reports overflow as result_out_of_range.
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace loom::base
