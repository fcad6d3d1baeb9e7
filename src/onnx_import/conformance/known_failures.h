// The reviewed list of supported cases that still fail
// (known_failures.txt beside this file). One entry a line:
//
//   node/test_foo  # why it fails, and what would fix it
//   node/test_bar  [may-pass]  # why it fails, and why it can pass by chance
//
// Blank lines and lines starting with '#' are comments. Every entry needs a
// reason. The runner treats a listed case that fails as expected, and a
// listed case that passes (or no longer counts as supported) as an error, so
// the list can only shrink. The one exception is `[may-pass]`, for a case
// whose expected values are one random draw (an unseeded Bernoulli): Loom's
// draw matches it now and then, so passing is not news there. Such a case
// that becomes unsupported is still an error.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace loom::conformance {

struct KnownFailure {
  std::string reason;
  bool may_pass = false;  // listed with [may-pass]
};

// Case id ("node/test_foo") → entry.
using KnownFailures = std::map<std::string, KnownFailure>;

// Throws loom::InvalidArgumentError as "<label>:<line>: ..." for an entry
// without a reason, a malformed id, an unknown marker or a repeated entry.
KnownFailures ParseKnownFailures(std::string_view text, const std::string& label);

// Reads and parses `path`; throws loom::InvalidArgumentError naming the path
// when it cannot be read.
KnownFailures ReadKnownFailures(const std::string& path);

}  // namespace loom::conformance
