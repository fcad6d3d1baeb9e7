// The exp loops of Softmax / LogSoftmax, per ISA level (float32) and
// portable (float32, float64). They never parallelize: softmax.cc calls
// them inside its ParallelFor shards.
#pragma once

#include <cstdint>

#include "kernels/isa_variant.h"

namespace loom::kernels {

template <typename T>
struct SoftmaxPrimitives {
  // y[i] = exp(x[i] - shift) for i < n; returns the sum of the y[i], added
  // in an order that depends only on n. shift is the max of x (or NaN).
  T (*exp_shift_sum)(const T* x, T shift, T* y, int64_t n);
  // y[i] = exp(x[i] - shift[i]) for i < n.
  void (*exp_shift)(const T* x, const T* shift, T* y, int64_t n);
};

// Defined for float and double; std::exp element by element.
template <typename T>
const SoftmaxPrimitives<T>& PortableSoftmaxPrimitives();

// A polynomial exp 8 floats at a time (normalization/f32_softmax__avx2_fma.cc).
const SoftmaxPrimitives<float>& F32SoftmaxPrimitives__avx2_fma();

// The float32 table for `isa`; throws InvalidArgumentError if this CPU does
// not run `isa`. AVX-512 machines use the AVX2 variant: exp is not the
// bottleneck enough to warrant a third copy yet.
const SoftmaxPrimitives<float>& F32SoftmaxPrimitivesFor(Isa isa);
// The ISA levels with tables of their own (isa_variant.h).
IsaMask F32SoftmaxIsaLevels();

}  // namespace loom::kernels
