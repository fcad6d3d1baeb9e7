// BatchNormalization, inference mode. With a[c] = scale[c] / sqrt(var[c] +
// epsilon) (computed in double), y = (x - mean[c]) * a[c] + B[c]: a
// subtract and a multiply-add per element over each contiguous plane of
// spatial size S. Folding further into x * a + (B - mean * a) would save
// the subtract but cancels badly when |mean * a| dwarfs y; the loop is
// memory-bound either way. Elementwise, so bit-exact for any split.
#include <cmath>
#include <string>
#include <vector>

#include "kernels/normalization/normalization.h"
#include "kernels/normalization/normalize_plane.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "BatchNormalization";
// Spatial elements per parallel unit: 16K floats (64 KiB) amortize a shard;
// images smaller than this are one unit per plane.
constexpr int64_t kBlock = 16384;
// Guessed: a vectorized subtract + multiply-add streams ~4 floats per ns.
constexpr double kCostPerElementNs = 0.25;

template <typename T>
void RunTyped(const Tensor& x, const Tensor* const params[4], float epsilon, Tensor& y,
              threading::ThreadPool* pool) {
  const int64_t batch = x.shape().dim(0), channels = x.shape().dim(1);
  const int64_t spatial = channels == 0 || batch == 0 ? 0 : x.num_elements() / (batch * channels);
  std::vector<T> a(static_cast<size_t>(channels));
  const T* scale = params[0]->data<T>();
  const T* bias = params[1]->data<T>();
  const T* mean = params[2]->data<T>();
  const T* var = params[3]->data<T>();
  for (int64_t c = 0; c < channels; ++c) {
    const double ac = static_cast<double>(scale[c]) /
                      std::sqrt(static_cast<double>(var[c]) + static_cast<double>(epsilon));
    a[static_cast<size_t>(c)] = static_cast<T>(ac);
  }
  if (spatial == 0) return;
  const int64_t blocks = (spatial + kBlock - 1) / kBlock;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  // Serial equivalent: for plane p < N*C, block k: Normalize that block.
  threading::ParallelFor(pool, batch * channels * blocks,
                         kCostPerElementNs * static_cast<double>(std::min(spatial, kBlock)),
                         [&](int64_t begin, int64_t end) {
                           for (int64_t u = begin; u < end; ++u) {
                             const int64_t plane = u / blocks, k = u % blocks;
                             const int64_t c = plane % channels;
                             const int64_t offset = plane * spatial + k * kBlock;
                             NormalizePlane(in + offset, mean[c], a[static_cast<size_t>(c)],
                                            bias[c], out + offset,
                                            std::min(kBlock, spatial - k * kBlock));
                           }
                         });
}

}  // namespace

std::vector<Tensor> BatchNormalizationKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 5, 5);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64});
  if (x.shape().rank() < 2) {
    ThrowKernelError(kOp,
                     "input 'X' must have rank >= 2 (got shape " + x.shape().to_string() + ")");
  }
  if (attrs.get_int("training_mode", 0) != 0) {
    ThrowKernelError(kOp, "training_mode=1 is not supported (inference only)");
  }
  static constexpr const char* kNames[4] = {"scale", "B", "input_mean", "input_var"};
  const Tensor* params[4];
  const int64_t channels = x.shape().dim(1);
  for (int i = 0; i < 4; ++i) {
    params[i] = &RequiredInput(kOp, inputs, static_cast<size_t>(i + 1), kNames[i]);
    CheckDType(kOp, kNames[i], *params[i], {x.dtype()});
    if (!(params[i]->shape() == Shape({channels}))) {
      ThrowKernelError(kOp, "input '" + std::string(kNames[i]) + "' must have shape [" +
                                std::to_string(channels) + "] (channels of X " +
                                x.shape().to_string() + ") (got shape " +
                                params[i]->shape().to_string() + ")");
    }
  }
  const float epsilon = attrs.get_float("epsilon", 1e-5f);
  Tensor y(x.dtype(), x.shape());
  if (x.dtype() == DType::kFloat32) {
    RunTyped<float>(x, params, epsilon, y, ctx.pool);
  } else {
    RunTyped<double>(x, params, epsilon, y, ctx.pool);
  }
  return {y};
}

}  // namespace loom::kernels
