// Integer helpers shared by the graph's shape rules and the kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace loom::base {

// ceil(a / b) for a >= 0 and b > 0 (counts of blocks, tiles, chunks); the
// caller guarantees a + b - 1 does not overflow.
constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The product of `values` (1 for none), in their own type, unchecked: for
// sizes already known to fit (the dims of a tensor that exists) and for
// floating-point size estimates.
template <class Range>
constexpr auto Product(const Range& values) {
  typename Range::value_type product = 1;
  for (auto v : values) product *= v;
  return product;
}

// The product of `values`: 0 if any is 0 (even when the others would
// overflow), nullopt if it exceeds int64.
constexpr std::optional<int64_t> CheckedProduct(std::span<const int64_t> values) {
  for (int64_t v : values) {
    if (v == 0) return 0;
  }
  int64_t product = 1;
  for (int64_t v : values) {
    if (__builtin_mul_overflow(product, v, &product)) return std::nullopt;
  }
  return product;
}

}  // namespace loom::base
