// RMSNormalization (opset 23; transformer.h). The structure of
// LayerNormalization (layer_norm.cc) without the mean: X is viewed as
// [outer, n] with n the product of X.shape[axis:], and for each row
//
//   inv = 1 / sqrt(sum x^2 / n + epsilon);  y = x * inv * scale
//
// The sum is accumulated in kLanes partial sums combined in a fixed order
// (vectorized by the compiler, as LayerNormalization's), in float32 (double
// for float64). Rows are split over threads: bit-exact across thread counts.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/transformer/compute_buffer.h"
#include "kernels/transformer/transformer.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "RMSNormalization";
// Guessed: two vectorized passes over the row, ~0.7 ns per element.
constexpr double kCostPerElementNs = 0.7;
constexpr int kLanes = 16;  // fixed-trip blocks: vectorized by GCC

// sum x[i]^2 in a fixed lane order.
template <typename T>
T SumOfSquares(const T* __restrict x, int64_t n) {
  T lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += x[i + j] * x[i + j];
  }
  for (int j = 0; i + j < n; ++j) lanes[j] += x[i + j] * x[i + j];
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  }
  return lanes[0];
}

template <typename T>
void ScaleRow(const T* __restrict x, T inv, const T* __restrict scale, T* __restrict y, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) y[i + j] = x[i + j] * inv * scale[i + j];
  }
  for (; i < n; ++i) y[i] = x[i] * inv * scale[i];
}

// The scale expanded to the n elements of a normalized row: its dims are
// aligned to the right of X.shape[axis:], size-1 dims repeated.
template <typename T>
std::vector<T> ExpandScale(const Tensor& scale, const std::vector<int64_t>& normalized) {
  const T* s = scale.data<T>();
  const Shape& ss = scale.shape();
  const int rank = static_cast<int>(normalized.size());
  int64_t n = 1;
  for (int64_t d : normalized) n *= d;
  std::vector<T> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, index = 0, stride = 1;
    for (int a = rank - 1, sa = ss.rank() - 1; a >= 0 && sa >= 0; --a, --sa) {
      const int64_t d = normalized[static_cast<size_t>(a)];
      if (ss.dim(sa) != 1) index += (rest % d) * stride;
      stride *= ss.dim(sa);
      rest /= d;
    }
    out[static_cast<size_t>(i)] = s[index];
  }
  return out;
}

template <typename T>
Tensor RunTyped(const Tensor& x_in, const Tensor& scale_in, const std::vector<int64_t>& normalized,
                int64_t outer, int64_t n, float epsilon, threading::ThreadPool* pool) {
  const Tensor x = InComputeType<T>(x_in);
  const std::vector<T> scale = ExpandScale<T>(InComputeType<T>(scale_in), normalized);
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  const T* in = x.data<T>();
  const T* s = scale.data();
  T* out = y.data<T>();
  const T eps = static_cast<T>(epsilon);
  // Serial equivalent: for r < outer: the sum of squares and scaling of row r.
  threading::ParallelFor(pool, outer, kCostPerElementNs * static_cast<double>(n),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             const T* row = in + r * n;
                             const T mean_square = SumOfSquares(row, n) / static_cast<T>(n);
                             const T inv = T{1} / std::sqrt(mean_square + eps);
                             ScaleRow(row, inv, s, out + r * n, n);
                           }
                         });
  return FromComputeType(y, scale_in.dtype());
}

}  // namespace

std::vector<Tensor> RMSNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& scale = RequiredInput(kOp, inputs, 1, "scale");
  const auto floats = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16};
  CheckDType(kOp, "X", x, floats);
  CheckDType(kOp, "scale", scale, floats);
  const int rank = x.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'X' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", -1), rank);
  const int64_t stash_type = attrs.get_int("stash_type", 1);
  if (stash_type != 1) {
    ThrowKernelError(
        kOp, "stash_type " + std::to_string(stash_type) + " is not supported (only 1 = float32)");
  }
  const std::vector<int64_t>& dims = x.shape().dims();
  const std::vector<int64_t> normalized(dims.begin() + axis, dims.end());
  // scale broadcasts to X.shape[axis:]: aligned right, each dim 1 or equal,
  // extra leading dims 1.
  const Shape& ss = scale.shape();
  bool fits = true;
  for (int k = 1; k <= ss.rank(); ++k) {
    const int64_t d = ss.dim(ss.rank() - k);
    if (k <= static_cast<int>(normalized.size())) {
      fits = fits && (d == 1 || d == normalized[normalized.size() - static_cast<size_t>(k)]);
    } else {
      fits = fits && d == 1;
    }
  }
  if (!fits) {
    ThrowKernelError(kOp, "input 'scale' must broadcast to " + Shape(normalized).to_string() +
                              " (X.shape[axis:] of X " + x.shape().to_string() + ") (got shape " +
                              ss.to_string() + ")");
  }
  int64_t outer = 1;
  for (int a = 0; a < axis; ++a) outer *= dims[static_cast<size_t>(a)];
  const int64_t n = Shape(normalized).num_elements();
  const float epsilon = attrs.get_float("epsilon", 1e-5f);
  if (x.dtype() == DType::kFloat64 || scale.dtype() == DType::kFloat64) {
    return {RunTyped<double>(x, scale, normalized, outer, n, epsilon, ctx.pool)};
  }
  return {RunTyped<float>(x, scale, normalized, outer, n, epsilon, ctx.pool)};
}

}  // namespace loom::kernels
