// ArgMax / ArgMin over one axis, on the canonical form of reduce_geometry.h:
// a max/min pass and a find pass per output when the axis is innermost (the
// value is exact, so the index is the same as a one-pass scan's); a scan
// of whole rows of outputs at once (best value and index per output, so the
// inner loop runs across contiguous outputs). Work is split over outputs
// only: results are identical for every thread count (they are exact).
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/half_float.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_geometry.h"
#include "kernels/reduce/reduce_primitives.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Outputs per unit of the column scan: 1024 values + indices stay in L1.
constexpr int64_t kColumnBlock = 1024;
// Guessed: one compare-and-select per element, not vectorized.
constexpr double kCostPerElementNs = 0.7;
// Guessed: a vectorized max pass plus a compare-and-exit scan.
constexpr double kFindCostPerElementNs = 0.3;

// The first (or last) i < n with match(x[i]); n when none.
template <typename T, typename Match>
int64_t Find(const T* x, int64_t n, bool last, Match match) {
  if (last) {
    for (int64_t i = n; i-- > 0;) {
      if (match(x[i])) return i;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (match(x[i])) return i;
    }
  }
  return n;
}

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Whether x replaces the current best. A NaN beats any number; among equals
// (and among NaNs) the first or the last wins as asked.
template <typename T, bool kMax, bool kLast>
bool Better(T x, T best) {
  if (IsNan(best)) return kLast && IsNan(x);
  if (IsNan(x)) return true;
  if constexpr (kLast) {
    return kMax ? x >= best : x <= best;
  } else {
    return kMax ? x > best : x < best;
  }
}

template <typename T, bool kMax, bool kLast>
void Scan(const ReduceGeometry& g, const T* x, int64_t* y, const ReducePrimitives<T>& prims,
          threading::ThreadPool* pool) {
  const int64_t count = g.reduce_count;
  if (count == 1) {  // the axis has size 1: every index is 0
    std::fill(y, y + g.num_outputs, int64_t{0});
    return;
  }
  if (g.inner_reduced) {
    // Two vectorized passes per run: the extreme value (NaN-propagating, from
    // the reduce primitives), then the first or last position holding it.
    // Serial equivalent: for o: y[o] = index of the best of its contiguous run.
    const ReducePrim prim = kMax ? ReducePrim::kMax : ReducePrim::kMin;
    threading::ParallelFor(
        pool, g.num_outputs, kFindCostPerElementNs * static_cast<double>(count),
        [&](int64_t begin, int64_t end) {
          ReduceOdometer output(g.kept, g.kept.size(), begin);
          for (int64_t o = begin; o < end; ++o, output.Next()) {
            const T* run = x + output.offset();
            const T best = prims.row(prim, run, count, T{0});
            y[o] = IsNan(best) ? Find(run, count, kLast, [](T v) { return IsNan(v); })
                               : Find(run, count, kLast, [best](T v) { return v == best; });
          }
        });
    return;
  }
  // Serial equivalent: for each row r of `inner` outputs, segment [c0, c1):
  // for each position i of the axis: update best[c] with x[row(r) + i*stride + c].
  const int64_t width = g.inner;
  const int64_t stride = g.reduced[0].stride;
  const int64_t segments = (width + kColumnBlock - 1) / kColumnBlock;
  threading::ParallelFor(
      pool, g.num_outputs / width * segments,
      kCostPerElementNs * static_cast<double>(count * std::min(width, kColumnBlock)),
      [&](int64_t begin, int64_t end) {
        ReduceOdometer row(g.kept, g.kept.size() - 1, begin / segments);
        std::vector<T> best(static_cast<size_t>(std::min(width, kColumnBlock)));
        for (int64_t u = begin; u < end; ++u) {
          const int64_t r = u / segments, c0 = (u % segments) * kColumnBlock;
          if (u != begin && c0 == 0) row.Next();
          const int64_t len = std::min(kColumnBlock, width - c0);
          const T* base = x + row.offset() + c0;
          int64_t* index = y + r * width + c0;
          std::copy(base, base + len, best.begin());
          std::fill(index, index + len, int64_t{0});
          for (int64_t i = 1; i < count; ++i) {
            const T* line = base + i * stride;
            for (int64_t c = 0; c < len; ++c) {
              if (Better<T, kMax, kLast>(line[c], best[static_cast<size_t>(c)])) {
                best[static_cast<size_t>(c)] = line[c];
                index[c] = i;
              }
            }
          }
        }
      });
}

template <typename T>
void Dispatch(bool is_max, bool last, const ReduceGeometry& g, const Tensor& x, Tensor& y, Isa isa,
              threading::ThreadPool* pool) {
  const T* in = x.data<T>();
  int64_t* out = y.data<int64_t>();
  const ReducePrimitives<T>* prims = &PortableReducePrimitives<T>();
  if constexpr (std::is_same_v<T, float>) prims = &F32ReducePrimitivesFor(isa);
  if (is_max) {
    last ? Scan<T, true, true>(g, in, out, *prims, pool)
         : Scan<T, true, false>(g, in, out, *prims, pool);
  } else {
    last ? Scan<T, false, true>(g, in, out, *prims, pool)
         : Scan<T, false, false>(g, in, out, *prims, pool);
  }
}

std::vector<Tensor> RunArg(std::string_view op, bool is_max, const KernelContext& ctx,
                           const Attributes& attrs, KernelInputs inputs) {
  CheckInputCount(op, inputs, 1, 1);
  const Tensor& input = RequiredInput(op, inputs, 0, "data");
  CheckDType(op, "data", input,
             {DType::kFloat32, DType::kFloat64, DType::kBFloat16, DType::kInt8, DType::kUInt8,
              DType::kInt16, DType::kUInt16, DType::kInt32, DType::kUInt32, DType::kInt64,
              DType::kUInt64});
  // bfloat16 widens to float32 exactly, order and NaNs included, so the
  // indices are the same.
  const Tensor x = WidenToFloat32(input);
  if (!IsaSupported(ctx.isa)) {
    ThrowKernelError(op, "ISA " + std::string(IsaName(ctx.isa)) + " is not supported by this CPU");
  }
  const int rank = x.shape().rank();
  if (rank == 0) ThrowKernelError(op, "input 'data' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(op, attrs.get_int("axis", 0), rank);
  const bool last = attrs.get_int("select_last_index", 0) != 0;
  const ReduceGeometry g = MakeReduceGeometry(x.shape(), {axis}, attrs.get_int("keepdims", 1) != 0);
  Tensor y(DType::kInt64, g.output_shape);
  if (g.num_outputs == 0) return {y};
  if (g.reduce_count == 0) {
    ThrowKernelError(op, "axis " + std::to_string(axis) + " of input 'data' (shape " +
                             x.shape().to_string() + ") is empty: no index to return");
  }
  switch (x.dtype()) {
    case DType::kFloat32:
      Dispatch<float>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kFloat64:
      Dispatch<double>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kInt32:
      Dispatch<int32_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kInt64:
      Dispatch<int64_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kInt8:
      Dispatch<int8_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kUInt8:
      Dispatch<uint8_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kInt16:
      Dispatch<int16_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kUInt16:
      Dispatch<uint16_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kUInt32:
      Dispatch<uint32_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    case DType::kUInt64:
      Dispatch<uint64_t>(is_max, last, g, x, y, ctx.isa, ctx.pool);
      break;
    default:
      break;  // refused by CheckDType above
  }
  return {y};
}

}  // namespace

std::vector<Tensor> ArgMaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  return RunArg("ArgMax", true, ctx, attrs, inputs);
}

std::vector<Tensor> ArgMinKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  return RunArg("ArgMin", false, ctx, attrs, inputs);
}

}  // namespace loom::kernels
