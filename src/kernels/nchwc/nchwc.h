// The channel-blocked layout (NCHWc) and the kernels that run on it.
//
// Layout: a 2-D activation [N, C, H, W] is stored as [N, ceil(C/B), H, W, B]:
// channel c lives in block c / B, lane c % B, so the B channels of one pixel
// are one vector. B is the vector width of the ISA (NchwcBlockSize): 16
// floats for AVX-512, 8 for AVX2 and the portable path. Lanes past C in the
// last block are padding: the reorder writes zeros there, every kernel here
// keeps them finite, and a convolution reading a blocked tensor multiplies
// them by zero weights, so they never reach a real channel.
//
// The graph optimizer (graph/passes/nchwc_layout.cc) chooses this layout for
// runs of convolutions, pools and elementwise ops and puts reorders only at
// the edges; these kernels never convert layouts behind the graph's back.
// Ops (Loom-internal, registered in kernels/registry.cc):
//
//   NchwcReorderInput(X [N, C, H, W]) -> [N, ceil(C/B), H, W, B]   attr block
//   NchwcReorderOutput(X blocked) -> [N, channels, H, W]           attr channels
//   NchwcConv(X, W, B?, Sum?) -> blocked [N, ceil(M/B), OH, OW, B]
//       ONNX Conv's attributes plus `block`, the fused activation
//       (fused_activation.h) and `input_layout` ("nchwc", or "nchw": X is a
//       plain [N, C, H, W] tensor, for a first layer with few channels).
//       W is ONNX's [M, C/group, KH, KW]. Sum, when given, is a blocked
//       tensor of Y's shape added before the activation (the residual Add):
//         Y = act(conv(X, W) + B + Sum)
//       Grouped convolutions need C/group and M/group to be multiples of B,
//       or C/group == M/group == 1 (depthwise).
//   NchwcMaxPool, NchwcAveragePool(X blocked) -> blocked: ONNX's attributes
//   NchwcGlobalAveragePool, NchwcGlobalMaxPool(X blocked) -> [N, Cb, 1, 1, B]
//   NchwcChannelAffine(X blocked, Scale?, Shift?) -> act(X * Scale + Shift),
//       Scale and Shift per channel: [1 or N, Cb, 1, 1, B] (an inference
//       BatchNormalization, a per-channel constant, squeeze-excitation's
//       scale); the fused activation attributes as NchwcConv's.
//
// Algorithms: direct convolution, no im2col. The output is computed in
// register tiles of up to 4 output blocks x a few consecutive output pixels
// (row-major, so a tile may span a row end; fewer blocks, more pixels:
// nchwc_micro_kernel.h's table); each input value is broadcast and
// multiplied by one weight vector per output block, the weights of a tile
// group packed as one sequential stream. Input channels are summed in
// slices whose weights stay in L2, partial sums kept in the output. When a
// window can read padding the input is first copied into a zero-padded
// scratch (per calling thread, grown only), so the tiles never test bounds;
// depthwise convolutions and pools clip their windows instead.
//
// 3x3 stride-1 convolutions with one group may run as Winograd F(4x4, 3x3)
// instead (attribute `winograd`: -1 automatic, the default; 0 never; 1
// whenever the shape allows): the input is cut into 6x6 patches of 4x4
// output tiles, each transformed to 36 vectors; at each of the 36 positions
// the product with the transformed weights is a pointwise convolution over
// the tiles (the direct kernel's 1x1 path); the products are transformed
// back to 4x4 outputs with bias, Sum and the activation. 36 multiplies
// where the direct form takes 144; the weights take 4x the memory, so the
// automatic choice skips layers whose transformed weights exceed 16 MB or
// 1 MB per tile of an image (nchwc_conv.cc has the measurements). Rounding:
// ~1e-5 of the sum of the |w x| terms, against ~1e-7 for the direct sum.
//
// Parallelism: ParallelFor over (image, group, tile group, pixel chunk);
// Winograd's three phases over (image, block, tile row) and (image,
// position, tile group, tile chunk). Units and the tiles inside them depend
// only on shapes, so results are bit-identical for any thread count.
//
// Errors: InvalidArgumentError "<Op>: ..." for wrong dtypes, ranks, block
// sizes or channel counts, as the plain kernels do.
//
// Thread safety: a PreparedNchwcConv is immutable; Run may be called
// concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/aligned_buffer.h"
#include "kernels/elementwise/activation.h"
#include "kernels/op_kernel.h"
#include "kernels/spatial_geometry.h"
#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

// The block size kernels for `isa` use: 16 (AVX-512) or 8.
int NchwcBlockSize(Isa isa);

// Whether NchwcConv can run this convolution (2-D, float32, groups as
// above): what the layout pass asks before converting a Conv.
bool NchwcConvSupports(int64_t in_channels, int64_t out_channels, int64_t group,
                       int64_t kernel_rank, int block);

class PreparedNchwcConv {
 public:
  // Checks W and B against the attributes and packs W for `isa` with the
  // block size `attrs` names (which must be NchwcBlockSize(isa)).
  PreparedNchwcConv(const Attributes& attrs, const Tensor& weights, const Tensor* bias, Isa isa);

  // `sum` (optional) is a blocked tensor of the output's shape.
  Tensor Run(const KernelContext& ctx, const Tensor& x, const Tensor* sum) const;

 private:
  void RunDirect(const KernelContext& ctx, const float* x, const SpatialGeometry& g, int64_t batch,
                 const float* sum, float* y) const;
  void RunDepthwise(const KernelContext& ctx, const float* x, const SpatialGeometry& g,
                    int64_t batch, float* y) const;
  void RunWinograd(const KernelContext& ctx, const float* x, const SpatialGeometry& g,
                   int64_t batch, const float* sum, float* y) const;
  bool UseWinograd(const SpatialGeometry& g) const;
  void PrepareWinograd(const Attributes& attrs, const float* w, int64_t cg, int64_t obg,
                       int64_t icbg, int64_t tile_blocks);

  Attributes attrs_;
  Isa isa_;
  int block_;
  bool plain_input_;  // input_layout "nchw"
  bool depthwise_;
  int64_t group_;
  int64_t out_channels_;  // M
  int64_t in_channels_;   // C
  int64_t kernel_h_, kernel_w_;
  Activation activation_;
  // Read with full vector loads: on 64-byte lines (base::AlignedAllocator).
  using Floats = std::vector<float, base::AlignedAllocator<float>>;
  Floats packed_;  // see nchwc_conv.cc
  Floats bias_;    // ceil(M/B)*B values, zero-padded
  // Winograd F(4x4, 3x3) weights (3x3, stride 1, dilation 1, one group,
  // blocked input; empty otherwise): 36 pointwise-packed matrices G g G^T,
  // one per transformed position, and zeros for their bias.
  int64_t winograd_ = -1;  // attribute 'winograd': -1 automatic, 0 never, 1 when possible
  Floats winograd_packed_;
  Floats zeros_;
};

// The registry's kernels, and NchwcConv's prepare stage (a PreparedNchwcConv
// when W and B are float32 constants, else null).
std::unique_ptr<PreparedKernel> PrepareNchwcConv(const PrepareArgs& args);
std::vector<Tensor> NchwcConvKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);
std::vector<Tensor> NchwcReorderInputKernel(const KernelContext& ctx, const Attributes& attrs,
                                            KernelInputs inputs);
std::vector<Tensor> NchwcReorderOutputKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs);
std::vector<Tensor> NchwcMaxPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs);
std::vector<Tensor> NchwcAveragePoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs);
std::vector<Tensor> NchwcGlobalAveragePoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                                 KernelInputs inputs);
std::vector<Tensor> NchwcChannelAffineKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs);
std::vector<Tensor> NchwcGlobalMaxPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                             KernelInputs inputs);

// Checks that `x` is a float32 rank-5 tensor blocked by 8 or 16 channels
// (its last dimension) and returns the block; InvalidArgumentError "<op>:
// input 'X' ..." otherwise.
int64_t CheckBlockedInput(std::string_view op, const Tensor& x);

// Plain-loop layout conversions (also the test oracle's bridge).
Tensor NchwToNchwc(const Tensor& x, int block);
Tensor NchwcToNchw(const Tensor& x, int64_t channels);

}  // namespace loom::kernels
