// Strict number parsing for values that come from outside (environment
// variables, command-line flags). Unlike atoi/strtol, nothing is silently
// accepted: "4x", "", " 4", "+-1" and out-of-range values all fail.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace loom::base {

// Parses an optional '-' followed by decimal digits, nothing else.
// Returns nullopt on any other text or on int64 overflow.
std::optional<int64_t> ParseInt64(std::string_view text);

}  // namespace loom::base
