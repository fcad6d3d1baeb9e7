// Small text helpers for parsing /proc, /sys and environment values.
#pragma once

#include <string_view>
#include <vector>

namespace loom::base {

// `text` without leading and trailing whitespace (spaces, tabs, newlines).
std::string_view Trim(std::string_view text);

// Splits on `separator`, keeping empty fields: Split("a,,b", ',') is
// {"a", "", "b"} and Split("", ',') is {""}.
std::vector<std::string_view> Split(std::string_view text, char separator);

}  // namespace loom::base
