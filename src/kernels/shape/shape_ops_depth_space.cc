// DepthToSpace and SpaceToDepth: each is a reshape, a transpose and a
// reshape (the NumPy programs in the ONNX spec), so each is one 6-D
// StridedCopy plan: output dims in output order, with the input stride of
// each. StridedCopy merges what stays contiguous and parallelizes over
// output rows, every output element written once from one source.
#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"

namespace loom::kernels {
namespace {

struct Nchw {
  int64_t n, c, h, w;
};

// The input's [N, C, H, W] and the checked blocksize.
Nchw ReadInput(std::string_view op, const Tensor& input, const Attributes& attrs,
               int64_t* blocksize) {
  CheckRank(op, "input", input, 4);
  if (!attrs.has("blocksize")) ThrowKernelError(op, "attribute 'blocksize' is required");
  *blocksize = attrs.get_int("blocksize");
  if (*blocksize <= 0) {
    ThrowKernelError(op,
                     "attribute 'blocksize' must be > 0 (got " + std::to_string(*blocksize) + ")");
  }
  const std::vector<int64_t>& d = input.shape().dims();
  return {d[0], d[1], d[2], d[3]};
}

Tensor Run(const KernelContext& ctx, const Tensor& input, Shape out_shape,
           shape_ops::StridedCopyPlan plan) {
  Tensor output = Tensor::uninitialized(input.dtype(), std::move(out_shape));
  if (output.num_elements() == 0) return output;
  plan.element_size = dtype_size(input.dtype());
  shape_ops::StridedCopy(ctx, plan, input.raw_data(), output.raw_data());
  return output;
}

}  // namespace

std::vector<Tensor> DepthToSpaceKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs) {
  constexpr std::string_view kOp = "DepthToSpace";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  int64_t bs = 0;
  const Nchw x = ReadInput(kOp, input, attrs, &bs);
  const std::string mode = attrs.get_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    ThrowKernelError(kOp, "attribute 'mode' must be DCR or CRD (got '" + mode + "')");
  }
  const int64_t block_area = shape_ops::CheckedMul(kOp, "blocksize^2", bs, bs);
  if (x.c % block_area != 0) {
    ThrowKernelError(kOp, "the channels of 'input' " + input.shape().to_string() +
                              " are not a multiple of blocksize^2 = " + std::to_string(block_area));
  }
  const int64_t c = x.c / block_area;
  const int64_t hw = x.h * x.w;
  // Output element (n, c, y, i, x, j) of [N, C', H, bs, W, bs] comes from
  // input channel (i * bs + j) * C' + c (DCR) or (c * bs + i) * bs + j
  // (CRD), at (y, x).
  const bool dcr = mode == "DCR";
  shape_ops::StridedCopyPlan plan;
  plan.dims = {x.n, c, x.h, bs, x.w, bs};
  plan.in_strides = {x.c * hw, (dcr ? 1 : block_area) * hw, x.w, (dcr ? bs * c : bs) * hw,
                     1,        (dcr ? c : 1) * hw};
  const Shape out_shape({x.n, c, shape_ops::CheckedMul(kOp, "the output height", x.h, bs),
                         shape_ops::CheckedMul(kOp, "the output width", x.w, bs)});
  return {Run(ctx, input, out_shape, std::move(plan))};
}

std::vector<Tensor> SpaceToDepthKernel(const KernelContext& ctx, const Attributes& attrs,
                                       KernelInputs inputs) {
  constexpr std::string_view kOp = "SpaceToDepth";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  int64_t bs = 0;
  const Nchw x = ReadInput(kOp, input, attrs, &bs);
  if (x.h % bs != 0 || x.w % bs != 0) {
    ThrowKernelError(kOp, "the height and width of 'input' " + input.shape().to_string() +
                              " must be multiples of blocksize " + std::to_string(bs));
  }
  const int64_t block_area = shape_ops::CheckedMul(kOp, "blocksize^2", bs, bs);
  const int64_t h = x.h / bs, w = x.w / bs;
  // Output element (n, i, j, c, y, x) of [N, bs, bs, C, H', W'] (channel
  // (i * bs + j) * C + c) comes from input (n, c, y * bs + i, x * bs + j).
  shape_ops::StridedCopyPlan plan;
  plan.dims = {x.n, bs, bs, x.c, h, w};
  plan.in_strides = {x.c * x.h * x.w, x.w, 1, x.h * x.w, bs * x.w, bs};
  const Shape out_shape(
      {x.n, shape_ops::CheckedMul(kOp, "the output channels", x.c, block_area), h, w});
  return {Run(ctx, input, out_shape, std::move(plan))};
}

}  // namespace loom::kernels
