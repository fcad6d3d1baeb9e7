// Linux CPU list syntax, as in /sys cpulist files, cpuset.cpus and taskset -c:
// "0-3,8,10-11". Used for reading topology files and for pinning options.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loom::platform {

// Parses a CPU list into ascending, de-duplicated CPU numbers. Surrounding
// whitespace (a trailing newline) is allowed; anything else malformed
// ("1-", "3-1", "a", "1,,2", negative numbers, numbers above 65535) gives nullopt.
// An empty or all-whitespace text is the empty list.
std::optional<std::vector<int>> ParseCpuList(std::string_view text);

// The inverse: {0,1,2,3,8} → "0-3,8".
std::string FormatCpuList(const std::vector<int>& cpus);

}  // namespace loom::platform
