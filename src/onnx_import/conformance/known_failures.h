// The reviewed list of supported cases that still fail
// (known_failures.txt beside this file). One entry a line:
//
//   node/test_foo  # why it fails, and what would fix it
//
// Blank lines and lines starting with '#' are comments. Every entry needs a
// reason. The runner treats a listed case that fails as expected, and a
// listed case that passes (or no longer counts as supported) as an error, so
// the list can only shrink.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace loom::conformance {

// Case id ("node/test_foo") → reason.
using KnownFailures = std::map<std::string, std::string>;

// Throws loom::InvalidArgumentError as "<label>:<line>: ..." for an entry
// without a reason, a malformed id or a repeated entry.
KnownFailures ParseKnownFailures(std::string_view text, const std::string& label);

// Reads and parses `path`; throws loom::InvalidArgumentError naming the path
// when it cannot be read.
KnownFailures ReadKnownFailures(const std::string& path);

}  // namespace loom::conformance
