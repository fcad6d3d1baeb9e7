// CumSum along one axis. The input is viewed as [outer, n, inner]: a unit
// is one outer index and a block of up to kColumnBlock inner columns, whose
// running sums step along the axis together (the inner loop runs across
// contiguous columns). Each column's sum is the serial left-to-right (or
// right-to-left) sum, whatever the thread count; a single long line is not
// split, since a parallel prefix sum would round differently.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reduce/reduce.h"
#include "loom/bfloat16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "CumSum";

// 1024 running sums (8 KiB at most) stay in L1 beside the rows they read.
constexpr int64_t kColumnBlock = 1024;
// Guess: a load, an add and a store per element, ~0.5 ns.
constexpr double kCostPerElementNs = 0.5;

// The running sum's type: float for float16 (Loom does not compute in
// float16; each output is rounded once), the element type otherwise.
template <typename T>
using AccOf =
    std::conditional_t<(std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>), float, T>;

// Integer sums wrap around (two's complement) instead of overflowing.
template <typename A>
A Add(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <typename T>
void CumSumLines(const KernelContext& ctx, const T* x, T* y, int64_t outer, int64_t n,
                 int64_t inner, bool exclusive, bool reverse) {
  using A = AccOf<T>;
  const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
  // Serial loop replaced: for each (o, column block): acc = 0; for each step
  // s along the axis (i = s, or n - 1 - s in reverse):
  //   exclusive: y[o, i, c] = acc; acc += x[o, i, c]
  //   inclusive: acc += x[o, i, c]; y[o, i, c] = acc.
  threading::ParallelFor(ctx.pool, outer * blocks,
                         static_cast<double>(n * std::min(inner, kColumnBlock)) * kCostPerElementNs,
                         [&](int64_t begin, int64_t end) {
                           std::vector<A> acc(static_cast<size_t>(std::min(inner, kColumnBlock)));
                           for (int64_t unit = begin; unit < end; ++unit) {
                             const int64_t o = unit / blocks;
                             const int64_t c0 = unit % blocks * kColumnBlock;
                             const int64_t width = std::min(kColumnBlock, inner - c0);
                             std::fill(acc.begin(), acc.begin() + width, A{0});
                             for (int64_t s = 0; s < n; ++s) {
                               const int64_t i = reverse ? n - 1 - s : s;
                               const T* in = x + (o * n + i) * inner + c0;
                               T* out = y + (o * n + i) * inner + c0;
                               for (int64_t c = 0; c < width; ++c) {
                                 A& sum = acc[static_cast<size_t>(c)];
                                 if (exclusive) {
                                   out[c] = static_cast<T>(sum);
                                   sum = Add(sum, static_cast<A>(in[c]));
                                 } else {
                                   sum = Add(sum, static_cast<A>(in[c]));
                                   out[c] = static_cast<T>(sum);
                                 }
                               }
                             }
                           }
                         });
}

}  // namespace

std::vector<Tensor> CumSumKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
  const Tensor& axis_input = RequiredInput(kOp, inputs, 1, "axis");
  CheckDType(kOp, "x", x,
             {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32, DType::kInt64});
  CheckDType(kOp, "axis", axis_input, {DType::kInt32, DType::kInt64});
  if (axis_input.num_elements() != 1 || axis_input.shape().rank() > 1) {
    ThrowKernelError(
        kOp, "input 'axis' must hold one value (got shape " + axis_input.shape().to_string() + ")");
  }
  const int rank = x.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'x' must have rank >= 1 (got shape [])");
  const int64_t axis_value = axis_input.dtype() == DType::kInt64
                                 ? axis_input.data<int64_t>()[0]
                                 : int64_t{axis_input.data<int32_t>()[0]};
  const int axis = NormalizeAxis(kOp, axis_value, rank);
  const bool exclusive = attrs.get_int("exclusive", 0) != 0;
  const bool reverse = attrs.get_int("reverse", 0) != 0;
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  if (y.num_elements() == 0) return {y};

  const std::vector<int64_t>& dims = x.shape().dims();
  const AxisExtents extents = ExtentsAroundAxis(x.shape(), axis);
  const int64_t outer = extents.outer, inner = extents.inner;
  const int64_t n = dims[axis];
  switch (x.dtype()) {
    case DType::kFloat32:
      CumSumLines(ctx, x.data<float>(), y.data<float>(), outer, n, inner, exclusive, reverse);
      break;
    case DType::kFloat64:
      CumSumLines(ctx, x.data<double>(), y.data<double>(), outer, n, inner, exclusive, reverse);
      break;
    case DType::kFloat16:
      CumSumLines(ctx, x.data<Float16>(), y.data<Float16>(), outer, n, inner, exclusive, reverse);
      break;
    case DType::kInt32:
      CumSumLines(ctx, x.data<int32_t>(), y.data<int32_t>(), outer, n, inner, exclusive, reverse);
      break;
    case DType::kInt64:
      CumSumLines(ctx, x.data<int64_t>(), y.data<int64_t>(), outer, n, inner, exclusive, reverse);
      break;
    default:
      break;  // refused by CheckDType above
  }
  return {y};
}

}  // namespace loom::kernels
