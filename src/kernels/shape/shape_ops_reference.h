// Plain reference implementations of the shape_ops kernels: the test
// oracle. Each one walks the output element by element, unravels the output
// index and computes the source index straight from the ONNX definition,
// with no blocking, no plan simplification and no threads. Arguments are
// already parsed and assumed valid (the kernels' argument checking is tested
// separately); elements are copied by byte size, so every dtype works.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <string>
#include <vector>

#include "loom/tensor.h"

namespace loom::kernels {

// out[i_0, ..., i_{r-1}] = x[j] with j[perm[d]] = i_d.
Tensor TransposeReference(const Tensor& x, const std::vector<int>& perm);

Tensor ConcatReference(const std::vector<Tensor>& inputs, int axis);

std::vector<Tensor> SplitReference(const Tensor& x, int axis, const std::vector<int64_t>& sizes);

// The spec's loop per axis: clamp start/end, then step while before end.
// `axes` are non-negative and distinct.
Tensor SliceReference(const Tensor& x, const std::vector<int64_t>& starts,
                      const std::vector<int64_t>& ends, const std::vector<int>& axes,
                      const std::vector<int64_t>& steps);

// `indices` are int64 in [-dim, dim).
Tensor GatherReference(const Tensor& x, const Tensor& indices, int axis);
Tensor GatherElementsReference(const Tensor& x, const Tensor& indices, int axis);

// pads = [begin_0..begin_{r-1}, end_0..end_{r-1}] for every axis; mode is
// "constant", "reflect", "edge" or "wrap"; `constant` is a one-element
// tensor of x's dtype.
Tensor PadReference(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode,
                    const Tensor& constant);

// `shape` is the broadcast output shape.
Tensor ExpandReference(const Tensor& x, const Shape& shape);

Tensor TileReference(const Tensor& x, const std::vector<int64_t>& repeats);

// Element by element through double (floats) or 64-bit integers (uint64
// read unsigned) with the rules of CastKernel in shape_ops.h.
Tensor CastReference(const Tensor& x, DType to);

}  // namespace loom::kernels
