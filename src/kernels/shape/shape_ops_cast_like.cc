// CastLike(input, target_type): Cast to the element type of target_type,
// whose values are not read.
#include "kernels/onnx_dtype.h"
#include "kernels/shape/shape_ops.h"

namespace loom::kernels {

std::vector<Tensor> CastLikeKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs) {
  CheckInputCount("CastLike", inputs, 2, 2);
  const Tensor& input = RequiredInput("CastLike", inputs, 0, "input");
  const Tensor& like = RequiredInput("CastLike", inputs, 1, "target_type");
  Attributes cast = attrs;  // saturate and round_mode pass through to Cast
  cast.set("to", OnnxDataType(like.dtype()));
  const Tensor* cast_inputs[] = {&input};
  return CastKernel(ctx, cast, cast_inputs);
}

}  // namespace loom::kernels
