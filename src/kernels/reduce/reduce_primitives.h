// The inner loops of the reductions: reduce one contiguous run to a value,
// or fold one contiguous run into a row of accumulators. reduce.cc builds
// every reduction from these; they never parallelize (callers run them
// inside their own ParallelFor shards).
//
// One table per ISA level for float32 (the same template source,
// reduce_primitives_impl.h, compiled with each level's flags) and a
// portable table for every dtype.
#pragma once

#include <cstdint>

#include "kernels/isa_variant.h"

namespace loom::kernels {

// What is folded in, and how: kSum x, kSumAbs |x|, kSumSquare x*x,
// kMax / kMin (NaN propagates), kProd, kSumExp exp(x - shift).
enum class ReducePrim { kSum, kSumAbs, kSumSquare, kMax, kMin, kProd, kSumExp };

template <typename T>
struct ReducePrimitives {
  // The primitive folded over x[0, n) starting from its identity (0, 0, 0,
  // lowest, highest, 1, 0). Lanes are combined in a fixed order, so the
  // result depends only on x and n.
  T (*row)(ReducePrim prim, const T* x, int64_t n, T shift);
  // acc[i] = combine(acc[i], f(x[i])) for i < n; kSumExp subtracts shift[i]
  // (shift may be null for the other primitives). acc and x do not overlap.
  void (*column)(ReducePrim prim, T* acc, const T* x, int64_t n, const T* shift);
};

// Portable tables, defined for float, double and the signed and unsigned
// integers of 8, 16, 32 and 64 bits. kSumExp is for floating types only.
template <typename T>
const ReducePrimitives<T>& PortableReducePrimitives();

const ReducePrimitives<float>& F32ReducePrimitives__avx2_fma();
const ReducePrimitives<float>& F32ReducePrimitives__avx512f();

// The float32 table for `isa`; throws InvalidArgumentError if this CPU does
// not run `isa`.
const ReducePrimitives<float>& F32ReducePrimitivesFor(Isa isa);
// The ISA levels with primitives of their own (isa_variant.h).
IsaMask F32ReduceIsaLevels();

}  // namespace loom::kernels
