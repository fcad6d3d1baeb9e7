// Data-movement and small linear-algebra operators added after the core
// shape ops (shape_ops.h), one file each: Unique, CenterCropPad, Col2Im,
// TensorScatter, ReverseSequence, MaxUnpool, Det. Same conventions as
// shape_ops.h: ONNX semantics of the newest opset, the calling convention of
// op_kernel.h, errors as InvalidArgumentError starting with the op name.
//
// Exactness: every output element has one writer and a fixed order of
// contributions (Col2Im sums a channel's patches in patch order, Det
// factors each matrix on one thread), so results are bit-exact across
// thread counts.
//
// Thread safety: stateless functions; concurrent calls are safe.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {

// Unique(X); attributes axis (optional: without it X is flattened), sorted
// (default 1). Returns Y (the unique elements or slices along axis, in
// ascending order when sorted, else in order of first occurrence) and the
// int64 vectors indices (first occurrence of each), inverse_indices (for
// each element or slice of X, its position in Y) and counts. Every dtype;
// floats compare by value (-0 == +0), slices lexicographically.
std::vector<Tensor> UniqueKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

// CenterCropPad(input_data, shape:int32/int64, axes attribute optional):
// each listed axis is cropped or zero-padded to shape[i], centered; an odd
// difference puts the extra element at the end (crop start and pad start
// are floor(|dim - size| / 2)). Every dtype.
std::vector<Tensor> CenterCropPadKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);

// Col2Im(input [N, C * prod(block), L], image_shape, block_shape: int64);
// attributes dilations, pads, strides. Sums each block column back into the
// image [N, C, image...]; L must be the number of block positions. float32
// and float64; parallel over (n, c).
std::vector<Tensor> Col2ImKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs);

// TensorScatter(past_cache, update, write_indices? int64 [batch]);
// attributes axis (default -2, not the batch axis 0), mode "linear"
// (write_indices[b] + s must stay inside the axis) or "circular" (modulo
// the axis length). Returns a copy of past_cache with update written along
// axis from each batch's write index. Every dtype.
std::vector<Tensor> TensorScatterKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs);

// ReverseSequence(input, sequence_lens int64 [batch]); attributes
// time_axis (default 0) and batch_axis (default 1), one 0 and the other 1.
// Reverses the first sequence_lens[b] steps of each batch entry. Every dtype.
std::vector<Tensor> ReverseSequenceKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs);

// MaxUnpool(X, I int64, output_shape? int64); attributes kernel_shape,
// strides, pads. The unpooled shape has per spatial axis (in - 1) * stride +
// kernel - pad_begin - pad_end; a zero tensor of it gets X[i] at the flat
// offset I[i] (for repeated offsets the last write wins). A given
// output_shape (same N and C, each spatial size at least the unpooled one)
// holds that tensor at its origin, zeros after it, as the ONNX reference
// does. Float dtypes (moved by element size).
std::vector<Tensor> MaxUnpoolKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs);

// Det(X [..., M, M]) -> [...]: LU decomposition with partial pivoting in
// double precision per matrix, the result rounded to X's dtype (float16
// and bfloat16 through float32). Float dtypes; parallel over matrices.
std::vector<Tensor> DetKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs);

}  // namespace loom::kernels
