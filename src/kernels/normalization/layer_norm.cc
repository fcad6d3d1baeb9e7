// LayerNormalization (opset 17) and InstanceNormalization: both normalize
// independent rows by their own mean and variance. LayerNormalization views
// X as [outer, n] with n the product of the normalized dims X.shape[axis:];
// InstanceNormalization views X as [N*C, spatial]. For each row:
//
//   mean = sum x / n;  var = sum (x - mean)^2 / n  (two passes: no
//   cancellation for rows with a large mean);  inv = 1 / sqrt(var + eps)
//   y = (x - mean) * inv * Scale + B
//
// Statistics are accumulated in the stash type (float32) for float32 X and
// in double for float64 X, in kLanes partial sums combined in a fixed
// order. Rows are split over threads: bit-exact across thread counts.
// LayerNormalization applies Scale/B per element of the row,
// InstanceNormalization per channel (one value for the whole row).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernels/normalization/normalization.h"
#include "kernels/normalization/normalize_plane.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LayerNormalization";
// Guessed: three vectorized passes over the row, ~1 ns per element.
constexpr double kCostPerElementNs = 1.0;
constexpr int kLanes = 16;  // fixed-trip blocks: vectorized by GCC at -O2

// sum (x[i] - center)^2 when square, else sum x[i]; fixed lane order.
template <typename T>
T LaneSum(const T* __restrict x, int64_t n, T center, bool square) {
  T lanes[kLanes] = {};
  int64_t i = 0;
  if (square) {
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lanes[j] += (x[i + j] - center) * (x[i + j] - center);
    }
    for (int j = 0; i + j < n; ++j) lanes[j] += (x[i + j] - center) * (x[i + j] - center);
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lanes[j] += x[i + j];
    }
    for (int j = 0; i + j < n; ++j) lanes[j] += x[i + j];
  }
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  }
  return lanes[0];
}

template <typename T>
void NormalizeRow(const T* __restrict x, T mean, T inv, const T* __restrict scale,
                  const T* __restrict bias, T* __restrict y, int64_t n) {
  int64_t i = 0;
  if (bias != nullptr) {
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) {
        y[i + j] = (x[i + j] - mean) * inv * scale[i + j] + bias[i + j];
      }
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i] + bias[i];
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) y[i + j] = (x[i + j] - mean) * inv * scale[i + j];
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i];
  }
}

// Row statistics: mean and 1 / sqrt(var + epsilon).
template <typename T>
std::pair<T, T> RowStats(const T* row, int64_t n, float epsilon) {
  const T mean = LaneSum(row, n, T{0}, false) / static_cast<T>(n);
  const T var = LaneSum(row, n, mean, true) / static_cast<T>(n);
  return {mean, T{1} / std::sqrt(var + static_cast<T>(epsilon))};
}

template <typename T>
void RunTyped(const Tensor& x, const Tensor& scale, const Tensor* bias, int64_t outer, int64_t n,
              float epsilon, Tensor& y, Tensor& mean_out, Tensor& inv_out,
              threading::ThreadPool* pool) {
  const T* in = x.data<T>();
  const T* s = scale.data<T>();
  const T* b = bias != nullptr ? bias->data<T>() : nullptr;
  T* out = y.data<T>();
  float* means = mean_out.data<float>();
  float* invs = inv_out.data<float>();
  // Serial equivalent: for r < outer: statistics and normalization of row r.
  threading::ParallelFor(pool, outer, kCostPerElementNs * static_cast<double>(n),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             const T* row = in + r * n;
                             const auto [mean, inv] = RowStats(row, n, epsilon);
                             means[r] = static_cast<float>(mean);
                             invs[r] = static_cast<float>(inv);
                             NormalizeRow(row, mean, inv, s, b, out + r * n, n);
                           }
                         });
}

// dims without leading 1s, so [1, 4] matches [4].
std::vector<int64_t> WithoutLeadingOnes(std::vector<int64_t> dims) {
  size_t k = 0;
  while (k < dims.size() && dims[k] == 1) ++k;
  return std::vector<int64_t>(dims.begin() + static_cast<std::ptrdiff_t>(k), dims.end());
}

void CheckNormalizedShape(std::string_view name, const Tensor& t, const Tensor& x,
                          const std::vector<int64_t>& normalized) {
  CheckDType(kOp, name, t, {x.dtype()});
  if (WithoutLeadingOnes(t.shape().dims()) != WithoutLeadingOnes(normalized)) {
    ThrowKernelError(kOp, "input '" + std::string(name) + "' must have shape " +
                              Shape(normalized).to_string() + " (X.shape[axis:] of X " +
                              x.shape().to_string() + ") (got shape " + t.shape().to_string() +
                              ")");
  }
}

template <typename T>
void RunInstanceNorm(const Tensor& x, const Tensor& scale, const Tensor& bias, float epsilon,
                     Tensor& y, threading::ThreadPool* pool) {
  const int64_t channels = x.shape().dim(1);
  const int64_t rows = x.shape().dim(0) * channels;
  if (rows == 0) return;
  const int64_t n = x.num_elements() / rows;
  const T* in = x.data<T>();
  const T* s = scale.data<T>();
  const T* b = bias.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: for r < N*C: normalize row r with channel r % C.
  threading::ParallelFor(pool, rows, kCostPerElementNs * static_cast<double>(n),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t r = begin; r < end; ++r) {
                             const auto [mean, inv] = RowStats(in + r * n, n, epsilon);
                             const int64_t c = r % channels;
                             // Not x * a + (b - mean * a): with a large mean and a
                             // small variance the two terms cancel.
                             NormalizePlane(in + r * n, mean, inv * s[c], b[c], out + r * n, n);
                           }
                         });
}

}  // namespace

std::vector<Tensor> InstanceNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                                KernelInputs inputs) {
  constexpr std::string_view kInstanceOp = "InstanceNormalization";
  CheckInputCount(kInstanceOp, inputs, 3, 3);
  const Tensor& x = RequiredInput(kInstanceOp, inputs, 0, "input");
  CheckDType(kInstanceOp, "input", x, {DType::kFloat32, DType::kFloat64});
  if (x.shape().rank() < 3) {
    ThrowKernelError(kInstanceOp,
                     "input 'input' must have rank >= 3 (got shape " + x.shape().to_string() + ")");
  }
  const int64_t channels = x.shape().dim(1);
  const Tensor& scale = RequiredInput(kInstanceOp, inputs, 1, "scale");
  const Tensor& bias = RequiredInput(kInstanceOp, inputs, 2, "B");
  for (const auto& [name, t] : {std::pair{"scale", &scale}, std::pair{"B", &bias}}) {
    CheckDType(kInstanceOp, name, *t, {x.dtype()});
    if (!(t->shape() == Shape({channels}))) {
      ThrowKernelError(kInstanceOp, "input '" + std::string(name) + "' must have shape [" +
                                        std::to_string(channels) + "] (channels of input " +
                                        x.shape().to_string() + ") (got shape " +
                                        t->shape().to_string() + ")");
    }
  }
  const float epsilon = attrs.get_float("epsilon", 1e-5f);
  Tensor y(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat32) {
    RunInstanceNorm<float>(x, scale, bias, epsilon, y, ctx.pool);
  } else {
    RunInstanceNorm<double>(x, scale, bias, epsilon, y, ctx.pool);
  }
  return {y};
}

std::vector<Tensor> LayerNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& scale = RequiredInput(kOp, inputs, 1, "Scale");
  const Tensor* bias = OptionalInput(inputs, 2);
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64});
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
  CheckNormalizedShape("Scale", scale, x, normalized);
  if (bias != nullptr) CheckNormalizedShape("B", *bias, x, normalized);

  std::vector<int64_t> stat_dims(dims.begin(), dims.begin() + axis);
  stat_dims.resize(dims.size(), 1);
  int64_t outer = 1;
  for (int a = 0; a < axis; ++a) outer *= dims[static_cast<size_t>(a)];
  const int64_t n = Shape(normalized).num_elements();
  Tensor y(x.dtype(), x.shape());
  Tensor mean(DType::kFloat32, Shape(stat_dims));
  Tensor inv_std(DType::kFloat32, Shape(stat_dims));
  const float epsilon = attrs.get_float("epsilon", 1e-5f);
  if (x.dtype() == DType::kFloat32) {
    RunTyped<float>(x, scale, bias, outer, n, epsilon, y, mean, inv_std, ctx.pool);
  } else {
    RunTyped<double>(x, scale, bias, outer, n, epsilon, y, mean, inv_std, ctx.pool);
  }
  return {y, mean, inv_std};
}

}  // namespace loom::kernels
