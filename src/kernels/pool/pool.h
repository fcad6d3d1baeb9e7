// Pooling kernels (ONNX MaxPool, AveragePool, GlobalMaxPool,
// GlobalAveragePool), in the KernelFn calling convention of op_kernel.h.
//
// X is N x C x D1 x ... x Dr (r >= 1 spatial axes, NCHW for images). Window
// geometry (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
// follows spatial_geometry.h.
//
// MaxPool -> {Y, Indices}. dtypes float32, float64, int8, uint8. Indices
//   (int64, always returned; the graph drops it when unused) is the flat
//   index into X of the element chosen, counting N and C as ONNX does:
//   storage_order 0 is row-major over all of X, storage_order 1 is
//   plane * (D1 * ... * Dr) plus the column-major index within the plane.
//   Padding never wins. Ties go to the first element in row-major window
//   order; NaN propagates (the first NaN in the window wins), unlike ONNX
//   Runtime, which skips NaN. A window lying entirely in padding (possible
//   only with pads >= the window extent) gives -inf (the lowest value for
//   integers) and index -1.
// AveragePool -> {Y}. dtypes float32, float64. count_include_pad = 0 divides
//   by the number of input elements in the window; 1 divides by the number
//   of window positions inside the explicitly padded input [-pad_begin,
//   size + pad_end): the ceil_mode overhang past pad_end is never counted, as
//   in ONNX Runtime and PyTorch. auto_pad SAME_* pads count as explicit. A
//   window with a divisor of 0 gives 0.
// LpPool -> {Y}. y = (sum over the window of |x|^p)^(1/p), attribute p
//   (default 2, >= 1); padding adds nothing. dtypes float32, float64,
//   float16 and bfloat16 (through float32); sums in double (pool_lp.cc).
// GlobalLpPool -> {Y} of shape N x C x 1 x ... x 1: LpPool with the whole
//   spatial extent as its window (attribute p, default 2, >= 1); an empty
//   spatial extent gives 0. dtypes as LpPool; X needs rank >= 3.
// GlobalMaxPool, GlobalAveragePool -> {Y} of shape N x C x 1 x ... x 1.
//   dtypes float32, float64; X needs rank >= 2 and a non-empty spatial
//   extent (rank 2, no spatial axes, copies X).
//
// Errors: InvalidArgumentError "<Op>: ..." naming the input or attribute
// and expected vs. actual (dtype, rank, storage_order, count_include_pad,
// and every geometry error of ResolveSpatialGeometry).
//
// Determinism: every output element is computed by one thread, in a fixed
// order that depends on neither the thread count nor the ISA, so all four
// kernels are bit-exact across thread counts and ISA levels.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

std::vector<Tensor> MaxPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                  KernelInputs inputs);
std::vector<Tensor> AveragePoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs);
std::vector<Tensor> GlobalLpPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs);
std::vector<Tensor> LpPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);
std::vector<Tensor> GlobalMaxPoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);
std::vector<Tensor> GlobalAveragePoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                            KernelInputs inputs);

}  // namespace loom::kernels
