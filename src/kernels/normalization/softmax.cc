// Softmax and LogSoftmax (opset 13) along one axis. The input is viewed as
// [outer, n, inner] with n the axis length:
//
// - inner == 1: each of the `outer` rows is contiguous: max, exp(x - max)
//   and its sum in one pass (SoftmaxPrimitives::exp_shift_sum), then a
//   scale (or, for LogSoftmax, x - max - log(sum)).
// - inner > 1: the same steps on segments of up to kColumnBlock columns at
//   a time, every loop running across contiguous columns.
//
// Work is split over rows / (outer, segment) units only: bit-exact across
// thread counts.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/normalization/normalization.h"
#include "kernels/normalization/softmax_primitives.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Columns per unit when the axis is not innermost: 256 maxima + sums
// (2 KiB of float32) stay in L1.
constexpr int64_t kColumnBlock = 256;
// Guessed cost per element: the exp dominates (~1 ns vectorized, ~5 ns
// through libm).
double CostPerElementNs(Isa isa) { return isa == Isa::kPortable ? 5.0 : 1.5; }

// max(a, b) as one vmaxps. It may drop a NaN, which is fine here: a NaN in
// the row reaches the sum of exp(x - max) anyway and makes every output of
// the row NaN.
template <typename T>
inline T PlainMax(T a, T b) {
  return b > a ? b : a;
}

// Loops below run in blocks of kLanes with a fixed trip count and
// __restrict pointers: GCC's -O2 cost model vectorizes only such loops.
constexpr int kLanes = 16;

template <typename T>
T RowMax(const T* __restrict x, int64_t n) {
  T lanes[kLanes];
  for (int j = 0; j < kLanes; ++j) lanes[j] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = PlainMax(lanes[j], x[i + j]);
  }
  for (int j = 0; i + j < n; ++j) lanes[j] = PlainMax(lanes[j], x[i + j]);
  T m = lanes[0];
  for (int j = 1; j < kLanes; ++j) m = PlainMax(m, lanes[j]);
  return m;
}

// y[i] = f(i) for i < n, in blocks of kLanes.
template <typename F>
inline void Blocked(int64_t n, F f) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) f(i + j);
  }
  for (; i < n; ++i) f(i);
}

template <typename T>
void Scale(T* __restrict y, T s, int64_t n) {
  Blocked(n, [=](int64_t i) { y[i] *= s; });
}
template <typename T>
void ScaleColumns(T* __restrict y, const T* __restrict s, int64_t n) {
  Blocked(n, [=](int64_t i) { y[i] *= s[i]; });
}
template <typename T>
void LogRow(const T* __restrict x, T m, T log_sum, T* __restrict y, int64_t n) {
  Blocked(n, [=](int64_t i) { y[i] = (x[i] - m) - log_sum; });
}
template <typename T>
void LogColumns(const T* __restrict x, const T* __restrict m, const T* __restrict log_sum,
                T* __restrict y, int64_t n) {
  Blocked(n, [=](int64_t i) { y[i] = (x[i] - m[i]) - log_sum[i]; });
}
template <typename T>
void MaxColumns(T* __restrict m, const T* __restrict x, int64_t n) {
  Blocked(n, [=](int64_t i) { m[i] = PlainMax(m[i], x[i]); });
}
template <typename T>
void AddColumns(T* __restrict s, const T* __restrict x, int64_t n) {
  Blocked(n, [=](int64_t i) { s[i] += x[i]; });
}

template <typename T>
void SoftmaxRow(const T* x, T* y, int64_t n, bool log, const SoftmaxPrimitives<T>& prims) {
  const T m = RowMax(x, n);
  const T sum = prims.exp_shift_sum(x, m, y, n);
  if (log) {
    LogRow(x, m, std::log(sum), y, n);
  } else {
    Scale(y, T{1} / sum, n);
  }
}

// Columns [0, width) of one outer slice; consecutive axis positions are
// `stride` elements apart. max and sum are scratch of `width` elements.
template <typename T>
void SoftmaxColumns(const T* x, T* y, int64_t n, int64_t stride, int64_t width, bool log,
                    const SoftmaxPrimitives<T>& prims, T* max, T* sum) {
  std::copy(x, x + width, max);
  for (int64_t k = 1; k < n; ++k) MaxColumns(max, x + k * stride, width);
  std::fill(sum, sum + width, T{0});
  for (int64_t k = 0; k < n; ++k) {
    prims.exp_shift(x + k * stride, max, y + k * stride, width);
    AddColumns(sum, y + k * stride, width);
  }
  if (log) {
    for (int64_t c = 0; c < width; ++c) sum[c] = std::log(sum[c]);
    for (int64_t k = 0; k < n; ++k) LogColumns(x + k * stride, max, sum, y + k * stride, width);
  } else {
    for (int64_t c = 0; c < width; ++c) sum[c] = T{1} / sum[c];
    for (int64_t k = 0; k < n; ++k) ScaleColumns(y + k * stride, sum, width);
  }
}

template <typename T>
void RunSoftmax(const Tensor& input, Tensor& output, int axis, bool log,
                const SoftmaxPrimitives<T>& prims, const KernelContext& ctx) {
  const Shape& shape = input.shape();
  int64_t outer = 1, inner = 1;
  for (int a = 0; a < axis; ++a) outer *= shape.dim(a);
  for (int a = axis + 1; a < shape.rank(); ++a) inner *= shape.dim(a);
  const int64_t n = shape.dim(axis);
  if (input.num_elements() == 0) return;
  const T* x = input.data<T>();
  T* y = output.data<T>();
  const double cost = CostPerElementNs(ctx.isa);
  if (inner == 1) {
    // Serial equivalent: for r < outer: SoftmaxRow(row r).
    threading::ParallelFor(ctx.pool, outer, cost * static_cast<double>(n),
                           [&](int64_t begin, int64_t end) {
                             for (int64_t r = begin; r < end; ++r) {
                               SoftmaxRow(x + r * n, y + r * n, n, log, prims);
                             }
                           });
    return;
  }
  // Serial equivalent: for o < outer, for each segment [c0, c0 + width) of
  // the inner columns: SoftmaxColumns(o, segment).
  const int64_t segments = (inner + kColumnBlock - 1) / kColumnBlock;
  threading::ParallelFor(
      ctx.pool, outer * segments, cost * static_cast<double>(n * std::min(inner, kColumnBlock)),
      [&](int64_t begin, int64_t end) {
        const int64_t block = std::min(inner, kColumnBlock);
        std::vector<T> scratch(2 * static_cast<size_t>(block));
        for (int64_t u = begin; u < end; ++u) {
          const int64_t o = u / segments, c0 = (u % segments) * kColumnBlock;
          const int64_t offset = o * n * inner + c0;
          SoftmaxColumns(x + offset, y + offset, n, inner, std::min(kColumnBlock, inner - c0), log,
                         prims, scratch.data(), scratch.data() + block);
        }
      });
}

std::vector<Tensor> Run(std::string_view op, bool log, const KernelContext& ctx,
                        const Attributes& attrs, KernelInputs inputs) {
  CheckInputCount(op, inputs, 1, 1);
  const Tensor& x = RequiredInput(op, inputs, 0, "input");
  CheckDType(op, "input", x, {DType::kFloat32, DType::kFloat64});
  if (!IsaSupported(ctx.isa)) {
    ThrowKernelError(op, "ISA " + std::string(IsaName(ctx.isa)) + " is not supported by this CPU");
  }
  // A scalar has no axis; ONNX requires rank >= 1.
  if (x.shape().rank() == 0)
    ThrowKernelError(op, "input 'input' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(op, attrs.get_int("axis", -1), x.shape().rank());
  Tensor y(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat32) {
    RunSoftmax<float>(x, y, axis, log, F32SoftmaxPrimitivesFor(ctx.isa), ctx);
  } else {
    RunSoftmax<double>(x, y, axis, log, PortableSoftmaxPrimitives<double>(), ctx);
  }
  return {y};
}

}  // namespace

std::vector<Tensor> SoftmaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs) {
  return Run("Softmax", false, ctx, attrs, inputs);
}

std::vector<Tensor> LogSoftmaxKernel(const KernelContext& ctx, const Attributes& attrs,
                                     KernelInputs inputs) {
  return Run("LogSoftmax", true, ctx, attrs, inputs);
}

}  // namespace loom::kernels
