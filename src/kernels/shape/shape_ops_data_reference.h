// Plain reference implementations of the kernels of shape_ops_data.h: the
// test oracles. Each walks its definition element by element with no
// threads; arguments are already parsed and valid.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

// {Y, indices, inverse_indices, counts}: slices (axis given) or elements
// compared by value as doubles, unique ones kept in order of first
// occurrence by a quadratic search, then sorted by a selection sort when
// `sorted`.
std::vector<Tensor> UniqueReference(const Tensor& x, std::optional<int> axis, bool sorted);

// `sizes` per axis of `axes` (non-negative).
Tensor CenterCropPadReference(const Tensor& x, const std::vector<int64_t>& sizes,
                              const std::vector<int>& axes);

// Each output pixel sums, in (block element, block position) order, the
// column entries that land on it. pads = [begin..., end...].
Tensor Col2ImReference(const Tensor& x, const std::vector<int64_t>& image,
                       const std::vector<int64_t>& block, const std::vector<int64_t>& dilations,
                       const std::vector<int64_t>& pads, const std::vector<int64_t>& strides);

// The spec's pseudocode; `write` has one index per batch entry.
Tensor TensorScatterReference(const Tensor& cache, const Tensor& update,
                              const std::vector<int64_t>& write, int axis, bool circular);

Tensor ReverseSequenceReference(const Tensor& x, const std::vector<int64_t>& lens, int time_axis);

// Zeros of `unpooled` with y[I[i]] = X[i] in order, copied to the origin of
// zeros of `out_dims`.
Tensor MaxUnpoolReference(const Tensor& x, const Tensor& indices,
                          const std::vector<int64_t>& unpooled,
                          const std::vector<int64_t>& out_dims);

// Determinants by cofactor expansion along the first row (M <= 8), in
// double, rounded to X's dtype.
Tensor DetReference(const Tensor& x);

}  // namespace loom::kernels
