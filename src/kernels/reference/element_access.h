// Element-by-element access to a tensor of any dtype, for the reference
// kernels (the test oracles), which trade speed for one plain code path.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

// Element i as a double: exact for every integer up to 2^53, bool as 0/1,
// float16 and bfloat16 converted.
double ReadElementAsDouble(const Tensor& t, int64_t i);

// Element i as an int64: exact for integer and bool dtypes, except uint64
// values past int64's max, which wrap to negative (the same 64 bits); float
// dtypes truncate toward zero and saturate (NaN gives 0).
int64_t ReadElementAsInt64(const Tensor& t, int64_t i);

// Stores v at element i: rounded for float dtypes; truncated toward zero and
// saturated for integers (NaN gives 0); v != 0 for bool.
void WriteElementFromDouble(Tensor& t, int64_t i, double v);

// Stores v at element i: wrapped to the width of integer dtypes (two's
// complement), converted for float dtypes, v != 0 for bool.
void WriteElementFromInt64(Tensor& t, int64_t i, int64_t v);

// The row-major index of element `linear` of a tensor of `dims`, and back.
std::vector<int64_t> Unravel(int64_t linear, const std::vector<int64_t>& dims);
int64_t Ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& dims);

// out element o := in element i (same dtype).
void CopyElement(const Tensor& in, int64_t i, Tensor& out, int64_t o);

}  // namespace loom::kernels
