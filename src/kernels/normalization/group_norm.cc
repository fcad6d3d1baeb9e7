// GroupNormalization (opset 21): X [N, C, spatial...] as N * num_groups
// contiguous groups of (C / num_groups) * spatial elements. Each group's
// mean and population variance (two passes, in double) normalize it; then
// channel c's scale and bias apply. Groups are split over threads.
#include <cmath>
#include <string>
#include <utility>

#include "kernels/half_float.h"
#include "kernels/normalization/normalization_more.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "GroupNormalization";

template <typename T>
void Run(const KernelContext& ctx, const Tensor& x, const Tensor& scale, const Tensor& bias,
         int64_t groups, double epsilon, Tensor& y) {
  const int64_t n = x.shape().dim(0), channels = x.shape().dim(1);
  const int64_t spatial = n * channels == 0 ? 0 : x.num_elements() / (n * channels);
  const int64_t per_group = channels / groups;  // channels in a group
  const int64_t group_size = per_group * spatial;
  const T* in = x.data<T>();
  const T* s = scale.data<T>();
  const T* b = bias.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: for g < N * groups: statistics, then normalize group g.
  threading::ParallelFor(
      ctx.pool, n * groups, 3.0 * static_cast<double>(group_size), [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
          const T* src = in + g * group_size;
          T* dst = out + g * group_size;
          double sum = 0;
          for (int64_t i = 0; i < group_size; ++i) sum += static_cast<double>(src[i]);
          const double mean = group_size == 0 ? 0 : sum / static_cast<double>(group_size);
          double square = 0;
          for (int64_t i = 0; i < group_size; ++i) {
            const double d = static_cast<double>(src[i]) - mean;
            square += d * d;
          }
          const double var = group_size == 0 ? 0 : square / static_cast<double>(group_size);
          const double inv = 1.0 / std::sqrt(var + epsilon);
          const int64_t first_channel = (g % groups) * per_group;
          for (int64_t c = 0; c < per_group; ++c) {
            const double sc = static_cast<double>(s[first_channel + c]);
            const double bc = static_cast<double>(b[first_channel + c]);
            for (int64_t i = c * spatial; i < (c + 1) * spatial; ++i) {
              dst[i] = static_cast<T>((static_cast<double>(src[i]) - mean) * inv * sc + bc);
            }
          }
        }
      });
}

}  // namespace

std::vector<Tensor> GroupNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& scale = RequiredInput(kOp, inputs, 1, "scale");
  const Tensor& bias = RequiredInput(kOp, inputs, 2, "bias");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  CheckDType(kOp, "scale", scale, {x.dtype()});
  CheckDType(kOp, "bias", bias, {x.dtype()});
  if (x.shape().rank() < 2) {
    ThrowKernelError(kOp, "input 'X' must have rank >= 2 ([N, C, ...]) (got shape " +
                              x.shape().to_string() + ")");
  }
  if (!attrs.has("num_groups")) ThrowKernelError(kOp, "required attribute 'num_groups' is missing");
  const int64_t groups = attrs.get_int("num_groups");
  const int64_t channels = x.shape().dim(1);
  if (groups < 1 || channels % groups != 0) {
    ThrowKernelError(kOp, "attribute 'num_groups' (" + std::to_string(groups) +
                              ") must be positive and divide the channels of input 'X' (" +
                              std::to_string(channels) + ")");
  }
  for (const auto& [name, t] : {std::pair<const char*, const Tensor*>{"scale", &scale},
                                std::pair<const char*, const Tensor*>{"bias", &bias}}) {
    if (!(t->shape() == Shape({channels}))) {
      ThrowKernelError(kOp, "input '" + std::string(name) + "' must have shape [" +
                                std::to_string(channels) + "] (X's channels) (got shape " +
                                t->shape().to_string() + ")");
    }
  }
  const int64_t stash_type = attrs.get_int("stash_type", 1);
  if (stash_type != 1) {
    ThrowKernelError(kOp, "attribute 'stash_type' = " + std::to_string(stash_type) +
                              " is not supported (only 1, float32 statistics)");
  }
  if (ComputesInFloat32(x.dtype())) {
    const Tensor wx = WidenToFloat32(x), ws = WidenToFloat32(scale), wb = WidenToFloat32(bias);
    const Tensor* widened[] = {&wx, &ws, &wb};
    return {NarrowFromFloat32(GroupNormalizationKernel(ctx, attrs, widened)[0], x.dtype())};
  }
  const double epsilon = attrs.get_float("epsilon", 1e-5f);
  Tensor y = Tensor::uninitialized(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat64) {
    Run<double>(ctx, x, scale, bias, groups, epsilon, y);
  } else {
    Run<float>(ctx, x, scale, bias, groups, epsilon, y);
  }
  return {y};
}

}  // namespace loom::kernels
