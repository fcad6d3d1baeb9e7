// The reduce ops on top of the canonical form (reduce_geometry.h) and the
// per-ISA inner loops (reduce_primitives.h). Two shapes of work:
//
// - innermost group reduced ("rows"): each output folds reduce_count /
//   inner contiguous runs with ReducePrimitives::row; outputs are split over
//   threads. A single very long run (a full reduction, say) is cut into
//   fixed kRowBlock pieces folded in parallel and combined in block order.
// - innermost group kept ("columns"): outputs come in contiguous rows of
//   `inner`; each row segment of kColumnBlock outputs accumulates every
//   reduced position with ReducePrimitives::column, vectorized across
//   outputs; (row, segment) units are split over threads.
//
// Either way an output's arithmetic never depends on the thread count.
// ReduceLogSumExp runs two folds: the max m, then sum exp(x - m).
#include "kernels/reduce/reduce.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "kernels/half_float.h"
#include "kernels/reduce/reduce_geometry.h"
#include "kernels/reduce/reduce_primitives_impl.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

enum class ReduceOp { kSum, kMean, kProd, kMax, kMin, kL1, kL2, kSumSquare, kLogSumExp, kLogSum };

// A long contiguous run is split into blocks of this many elements
// (64 KiB of float32: big enough that a block's fold dwarfs the shard
// overhead, small enough that a 1M-element reduction still uses 16 blocks).
constexpr int64_t kRowBlock = 16384;
// Output segment of the column case: 1024 float32 accumulators (4 KiB)
// stay in L1 while the reduced positions stream past.
constexpr int64_t kColumnBlock = 1024;

// Guessed cost for ParallelFor: a vectorized fold streams ~4 float32 per ns
// from L2/L3; exp is a libm call of ~5 ns.
double CostPerElementNs(ReducePrim prim) { return prim == ReducePrim::kSumExp ? 5.0 : 0.25; }

std::string_view OpName(ReduceOp op) {
  static constexpr std::string_view kNames[] = {
      "ReduceSum", "ReduceMean", "ReduceProd",      "ReduceMax",       "ReduceMin",
      "ReduceL1",  "ReduceL2",   "ReduceSumSquare", "ReduceLogSumExp", "ReduceLogSum"};
  return kNames[static_cast<int>(op)];
}

ReducePrim PrimFor(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd:
      return ReducePrim::kProd;
    case ReduceOp::kMax:
    case ReduceOp::kLogSumExp:
      return ReducePrim::kMax;
    case ReduceOp::kMin:
      return ReducePrim::kMin;
    case ReduceOp::kL1:
      return ReducePrim::kSumAbs;
    case ReduceOp::kL2:
    case ReduceOp::kSumSquare:
      return ReducePrim::kSumSquare;
    default:
      return ReducePrim::kSum;
  }
}

template <typename T>
T Combine(ReducePrim prim, T a, T b) {
  switch (prim) {
    case ReducePrim::kMax:
      return Max(a, b);
    case ReducePrim::kMin:
      return Min(a, b);
    case ReducePrim::kProd:
      return Mul(a, b);
    default:
      return Add(a, b);
  }
}

// out[o] = fold of prim over output o's reduced elements (shift[o] for
// kSumExp). num_outputs > 0 and reduce_count > 0.
template <typename T>
void Fold(ReducePrim prim, const ReduceGeometry& g, const T* x, const T* shift, T* out,
          const ReducePrimitives<T>& prims, threading::ThreadPool* pool) {
  const double cost = CostPerElementNs(prim);
  if (g.inner_reduced) {
    const int64_t run = g.inner;
    const int64_t runs = g.reduce_count / run;
    const size_t outer_reduced = g.reduced.size() - 1;
    if (runs == 1 && run >= 2 * kRowBlock) {
      // Serial equivalent: for o, b: partial[o][b] = row(block b of output o);
      // then out[o] = partials of o combined in block order.
      const int64_t blocks = (run + kRowBlock - 1) / kRowBlock;
      std::vector<T> partial(static_cast<size_t>(g.num_outputs * blocks));
      threading::ParallelFor(
          pool, g.num_outputs * blocks, cost * kRowBlock, [&](int64_t begin, int64_t end) {
            for (int64_t u = begin; u < end; ++u) {
              const int64_t o = u / blocks, b = u % blocks;
              const int64_t base = ReduceOdometer(g.kept, g.kept.size(), o).offset();
              const int64_t len = std::min(kRowBlock, run - b * kRowBlock);
              partial[static_cast<size_t>(u)] = prims.row(prim, x + base + b * kRowBlock, len,
                                                          shift != nullptr ? shift[o] : T{0});
            }
          });
      for (int64_t o = 0; o < g.num_outputs; ++o) {
        T acc = partial[static_cast<size_t>(o * blocks)];
        for (int64_t b = 1; b < blocks; ++b) {
          acc = Combine(prim, acc, partial[static_cast<size_t>(o * blocks + b)]);
        }
        out[o] = acc;
      }
      return;
    }
    // Serial equivalent: for o < num_outputs: out[o] = fold of its runs.
    threading::ParallelFor(pool, g.num_outputs, cost * static_cast<double>(g.reduce_count),
                           [&](int64_t begin, int64_t end) {
                             ReduceOdometer output(g.kept, g.kept.size(), begin);
                             ReduceOdometer position(g.reduced, outer_reduced);
                             for (int64_t o = begin; o < end; ++o, output.Next()) {
                               const T s = shift != nullptr ? shift[o] : T{0};
                               const T* base = x + output.offset();
                               T acc = prims.row(prim, base, run, s);
                               if (runs > 1) {
                                 position.Reset();
                                 for (int64_t r = 1; r < runs; ++r) {
                                   position.Next();
                                   acc = Combine(prim, acc,
                                                 prims.row(prim, base + position.offset(), run, s));
                                 }
                               }
                               out[o] = acc;
                             }
                           });
    return;
  }
  // Columns. Serial equivalent: for each row r of `inner` outputs and each
  // segment [c0, c1) of it: acc = identity; for every reduced position p:
  // acc[c] = combine(acc[c], f(x[row_base(r) + p + c])).
  const int64_t width = g.inner;
  const int64_t rows = g.num_outputs / width;
  const int64_t segments = (width + kColumnBlock - 1) / kColumnBlock;
  const T identity = Identity<T>(prim);
  threading::ParallelFor(pool, rows * segments,
                         cost * static_cast<double>(g.reduce_count) *
                             static_cast<double>(std::min(width, kColumnBlock)),
                         [&](int64_t begin, int64_t end) {
                           ReduceOdometer row(g.kept, g.kept.size() - 1, begin / segments);
                           ReduceOdometer position(g.reduced, g.reduced.size());
                           for (int64_t u = begin; u < end; ++u) {
                             const int64_t r = u / segments, c0 = (u % segments) * kColumnBlock;
                             if (u != begin && c0 == 0) row.Next();
                             const int64_t len = std::min(kColumnBlock, width - c0);
                             T* acc = out + r * width + c0;
                             const T* s = shift != nullptr ? shift + r * width + c0 : nullptr;
                             std::fill(acc, acc + len, identity);
                             position.Reset();
                             for (int64_t p = 0; p < g.reduce_count; ++p, position.Next()) {
                               prims.column(prim, acc, x + row.offset() + position.offset() + c0,
                                            len, s);
                             }
                           }
                         });
}

template <typename T>
T FinalizeMean(T sum, int64_t count) {
  if constexpr (std::is_unsigned_v<T>) {
    return count == 0 ? T{0} : static_cast<T>(sum / static_cast<uint64_t>(count));
  } else if constexpr (std::is_integral_v<T>) {
    return count == 0 ? T{0} : static_cast<T>(static_cast<int64_t>(sum) / count);
  } else {
    return sum / static_cast<T>(count);  // NaN for an empty set
  }
}

template <typename T>
T FinalizeL2(T sum_square) {
  if constexpr (std::is_integral_v<T>) {
    // A wrapped (overflowed) sum may be negative; clamp rather than cast NaN.
    return static_cast<T>(std::sqrt(std::max(0.0, static_cast<double>(sum_square))));
  } else {
    return std::sqrt(sum_square);
  }
}

template <typename T>
void RunTyped(ReduceOp op, const ReduceGeometry& g, const Tensor& input, Tensor& output,
              const ReducePrimitives<T>& prims, threading::ThreadPool* pool) {
  if (g.num_outputs == 0) return;
  T* y = output.data<T>();
  const int64_t n = g.num_outputs;
  const ReducePrim prim = PrimFor(op);
  if (g.reduce_count == 0) {
    std::fill(y, y + n, Identity<T>(prim));
  } else {
    Fold(prim, g, input.data<T>(), static_cast<const T*>(nullptr), y, prims, pool);
  }
  switch (op) {
    case ReduceOp::kMean:
      for (int64_t o = 0; o < n; ++o) y[o] = FinalizeMean(y[o], g.reduce_count);
      break;
    case ReduceOp::kL2:
      for (int64_t o = 0; o < n; ++o) y[o] = FinalizeL2(y[o]);
      break;
    case ReduceOp::kLogSumExp:
      if constexpr (std::is_floating_point_v<T>) {
        if (g.reduce_count == 0) break;  // -inf, the max of nothing
        std::vector<T> sums(static_cast<size_t>(n));
        Fold(ReducePrim::kSumExp, g, input.data<T>(), static_cast<const T*>(y), sums.data(), prims,
             pool);
        // An infinite or NaN max is the answer itself (and makes x - max NaN).
        for (int64_t o = 0; o < n; ++o) {
          if (std::isfinite(y[o])) y[o] += std::log(sums[static_cast<size_t>(o)]);
        }
      }
      break;
    case ReduceOp::kLogSum:  // log of the sum; an empty set gives log 0 = -inf
      if constexpr (std::is_floating_point_v<T>) {
        for (int64_t o = 0; o < n; ++o) y[o] = std::log(y[o]);
      }
      break;
    default:
      break;
  }
}

std::vector<Tensor> RunReduce(ReduceOp op, const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  const std::string_view name = OpName(op);
  CheckInputCount(name, inputs, 1, 2);
  const Tensor& x = RequiredInput(name, inputs, 0, "data");
  // ONNX's types for each op, less float16 (not implemented) and, for
  // ReduceLogSumExp and ReduceLogSum, the integers.
  if (op == ReduceOp::kLogSumExp || op == ReduceOp::kLogSum) {
    CheckDType(name, "data", x, {DType::kFloat32, DType::kFloat64, DType::kBFloat16});
  } else if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
    CheckDType(name, "data", x,
               {DType::kFloat32, DType::kFloat64, DType::kBFloat16, DType::kInt8, DType::kUInt8,
                DType::kInt32, DType::kUInt32, DType::kInt64, DType::kUInt64});
  } else {
    CheckDType(name, "data", x,
               {DType::kFloat32, DType::kFloat64, DType::kBFloat16, DType::kInt32, DType::kUInt32,
                DType::kInt64, DType::kUInt64});
  }
  if (ComputesInFloat32(x.dtype())) {
    // Reduced in float32 (the fast path), each output rounded back once.
    const Tensor wide = WidenToFloat32(x);
    std::vector<const Tensor*> widened(inputs.begin(), inputs.end());
    widened[0] = &wide;
    const std::vector<Tensor> y = RunReduce(op, ctx, attrs, widened);
    return {NarrowFromFloat32(y[0], x.dtype())};
  }
  if (!IsaSupported(ctx.isa)) {
    ThrowKernelError(name,
                     "ISA " + std::string(IsaName(ctx.isa)) + " is not supported by this CPU");
  }
  const std::vector<int> axes =
      ResolveReduceAxes(name, attrs, OptionalInput(inputs, 1), x.shape().rank());
  const ReduceGeometry g = MakeReduceGeometry(x.shape(), axes, attrs.get_int("keepdims", 1) != 0);
  Tensor y(x.dtype(), g.output_shape);
  switch (x.dtype()) {
    case DType::kFloat32:
      RunTyped<float>(op, g, x, y, F32ReducePrimitivesFor(ctx.isa), ctx.pool);
      break;
    case DType::kFloat64:
      RunTyped<double>(op, g, x, y, PortableReducePrimitives<double>(), ctx.pool);
      break;
    case DType::kInt32:
      RunTyped<int32_t>(op, g, x, y, PortableReducePrimitives<int32_t>(), ctx.pool);
      break;
    case DType::kInt64:
      RunTyped<int64_t>(op, g, x, y, PortableReducePrimitives<int64_t>(), ctx.pool);
      break;
    case DType::kInt8:
      RunTyped<int8_t>(op, g, x, y, PortableReducePrimitives<int8_t>(), ctx.pool);
      break;
    case DType::kUInt8:
      RunTyped<uint8_t>(op, g, x, y, PortableReducePrimitives<uint8_t>(), ctx.pool);
      break;
    case DType::kUInt32:
      RunTyped<uint32_t>(op, g, x, y, PortableReducePrimitives<uint32_t>(), ctx.pool);
      break;
    case DType::kUInt64:
      RunTyped<uint64_t>(op, g, x, y, PortableReducePrimitives<uint64_t>(), ctx.pool);
      break;
    default:
      break;  // refused by CheckDType above
  }
  return {y};
}

}  // namespace

std::vector<Tensor> ReduceSumKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  return RunReduce(ReduceOp::kSum, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceMeanKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  return RunReduce(ReduceOp::kMean, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceProdKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  return RunReduce(ReduceOp::kProd, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceMaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  return RunReduce(ReduceOp::kMax, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceMinKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  return RunReduce(ReduceOp::kMin, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceL1Kernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs) {
  return RunReduce(ReduceOp::kL1, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceL2Kernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs) {
  return RunReduce(ReduceOp::kL2, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceSumSquareKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  return RunReduce(ReduceOp::kSumSquare, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceLogSumExpKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  return RunReduce(ReduceOp::kLogSumExp, ctx, attrs, inputs);
}
std::vector<Tensor> ReduceLogSumKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs) {
  return RunReduce(ReduceOp::kLogSum, ctx, attrs, inputs);
}

}  // namespace loom::kernels
