// Integer helpers shared by the graph's shape rules and the kernels.
#pragma once

#include <cstdint>

namespace loom::base {

// ceil(a / b) for a >= 0 and b > 0 (counts of blocks, tiles, chunks); the
// caller guarantees a + b - 1 does not overflow.
constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace loom::base
