// Convolution (ONNX Conv, 1-D, 2-D and 3-D, float32), NCHW in and out:
//
//   Y[n, m, o...] = B[m] + sum_{c, t...} X[n, g*C/G + c, o*s - pb + t*d] * W[m, c, t...]
//   where g = m / (M/G) is output channel m's group, then the fused activation.
//
// Inputs X [N, C, spatial...], W [M, C/group, kernel...], optional B [M].
// Attributes: auto_pad, dilations, group, kernel_shape, pads, strides (see
// spatial_geometry.h) and the fused activation (fused_activation.h).
//
// Stages: PreparedConv packs the weights once per weight tensor (the graph
// builds it when W is a constant); Run binds an input and computes. ConvKernel
// is the one-shot form (prepare + run) used when W is not constant.
//
// Algorithms, chosen per call from the shapes:
//   - depthwise (group == C == M, 2-D): a direct kernel per channel plane;
//   - 1x1, stride 1, no padding: GEMM straight on the input (no copy);
//   - otherwise: im2col into a per-thread scratch, then GEMM,
// each GEMM with W as the prepacked A and the bias + activation applied as
// its epilogue while the tile is in cache. Parallelism: inside the GEMMs,
// the im2col copy and over depthwise planes, all through ParallelFor on
// ctx.pool.
//
// Determinism: bit-exact across thread counts (GEMM tiles and depthwise
// planes are computed by the same code whatever the sharding).
//
// Errors: InvalidArgumentError "Conv: ..." naming the input for a wrong
// dtype or rank, channels that do not match group, a bias of the wrong
// length, a window larger than the padded input.
//
// Thread safety: a PreparedConv is immutable; Run may be called concurrently.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "kernels/elementwise/activation.h"
#include "kernels/gemm/gemm.h"
#include "kernels/op_kernel.h"
#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

class PreparedConv {
 public:
  // Checks W and B against each other and the attributes, and packs W for
  // `isa` (the run must use the same isa).
  PreparedConv(const Attributes& attrs, const Tensor& weights, const Tensor* bias, Isa isa);

  Tensor Run(const KernelContext& ctx, const Tensor& x) const;

  int64_t group() const { return group_; }
  const Activation& activation() const { return activation_; }

 private:
  void RunDepthwise(const KernelContext& ctx, const Tensor& x, Tensor& y,
                    const struct SpatialGeometry& geometry) const;
  void RunGemm(const KernelContext& ctx, const Tensor& x, Tensor& y,
               const struct SpatialGeometry& geometry) const;

  Attributes attrs_;
  Tensor weights_;
  std::vector<float> bias_;  // M values (zeros when absent)
  Activation activation_;
  Isa isa_;
  int64_t group_;
  int64_t out_channels_;                  // M
  int64_t in_channels_per_group_;         // C / group
  std::vector<int64_t> kernel_;           // spatial kernel sizes
  std::vector<PackedGemmMatrix> packed_;  // one per group (not for depthwise)
};

std::vector<Tensor> ConvKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs);

// The registry's prepare stage: a PreparedConv when W (and B, if given) are
// float32 constants; null otherwise.
std::unique_ptr<PreparedKernel> PrepareConv(const PrepareArgs& args);

// The plain loop nest above, accumulated in double (the test oracle).
Tensor ConvReference(const Attributes& attrs, const Tensor& x, const Tensor& w, const Tensor* b);

}  // namespace loom::kernels
