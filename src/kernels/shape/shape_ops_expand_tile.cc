// Expand and Tile as StridedCopy plans. Expand reads broadcast axes with
// stride 0. Tile of dims d with repeats r writes the output [r0*d0, r1*d1,
// ...], whose layout is that of [r0, d0, r1, d1, ...]: so it is a copy over
// the interleaved dims with stride 0 on each repeat axis.
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "loom/errors.h"

namespace loom::kernels {

std::vector<Tensor> ExpandKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  constexpr std::string_view kOp = "Expand";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  const Tensor& shape_input = RequiredInput(kOp, inputs, 1, "shape");
  CheckDType(kOp, "shape", shape_input, {DType::kInt64});
  const std::vector<int64_t> requested = shape_ops::ReadIndexList(kOp, "shape", shape_input);
  for (int64_t dim : requested) {
    if (dim < 0) {
      ThrowKernelError(kOp, "input 'shape' has negative dimension " + std::to_string(dim));
    }
  }
  Shape out_shape;
  try {
    out_shape = broadcast_shapes(input.shape(), Shape(requested));
  } catch (const InvalidArgumentError& error) {
    ThrowKernelError(kOp,
                     "input 'input' cannot be broadcast to 'shape': " + std::string(error.what()));
  }
  Tensor output(input.dtype(), out_shape);
  if (output.num_elements() == 0) return {output};

  const std::vector<int64_t> strides = shape_ops::DenseStrides(input.shape());
  const int shift = out_shape.rank() - input.shape().rank();
  shape_ops::StridedCopyPlan plan;
  plan.element_size = dtype_size(input.dtype());
  plan.dims = out_shape.dims();
  for (int d = 0; d < out_shape.rank(); ++d) {
    const int k = d - shift;
    const bool broadcast = k < 0 || input.shape().dims()[k] == 1;
    plan.in_strides.push_back(broadcast ? 0 : strides[k]);
  }
  shape_ops::StridedCopy(ctx, plan, input.raw_data(), output.raw_data());
  return {output};
}

std::vector<Tensor> TileKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  constexpr std::string_view kOp = "Tile";
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  const Tensor& repeats_input = RequiredInput(kOp, inputs, 1, "repeats");
  CheckDType(kOp, "repeats", repeats_input, {DType::kInt64});
  const std::vector<int64_t> repeats = shape_ops::ReadIndexList(kOp, "repeats", repeats_input);
  const int rank = input.shape().rank();
  if (static_cast<int>(repeats.size()) != rank) {
    ThrowKernelError(kOp, "input 'repeats' has " + std::to_string(repeats.size()) +
                              " entries, expected " + std::to_string(rank) +
                              " (the rank of 'input' shape " + input.shape().to_string() + ")");
  }
  const std::vector<int64_t> strides = shape_ops::DenseStrides(input.shape());
  std::vector<int64_t> out_dims;
  shape_ops::StridedCopyPlan plan;
  plan.element_size = dtype_size(input.dtype());
  for (int d = 0; d < rank; ++d) {
    if (repeats[d] < 0) {
      ThrowKernelError(kOp, "input 'repeats' entry " + std::to_string(d) + " is " +
                                std::to_string(repeats[d]) + ", expected >= 0");
    }
    const int64_t dim = input.shape().dims()[d];
    out_dims.push_back(shape_ops::CheckedMul(kOp, "the output dimension", dim, repeats[d]));
    plan.dims.insert(plan.dims.end(), {repeats[d], dim});
    plan.in_strides.insert(plan.in_strides.end(), {0, strides[d]});
  }
  Tensor output(input.dtype(), Shape(std::move(out_dims)));
  if (output.num_elements() > 0) {
    shape_ops::StridedCopy(ctx, plan, input.raw_data(), output.raw_data());
  }
  return {output};
}

}  // namespace loom::kernels
