// LoomDropout: ONNX Dropout (12 on) whose training_mode and ratio are both
// run-time values, so the importer (onnx/opset_adapter.cc) cannot decide
// it is the identity. Training mode with a non-zero ratio drops random
// elements, which Loom does not do; everything else is the identity with
// an all-true mask.
#include <algorithm>
#include <string>

#include "kernels/elementwise/elementwise.h"
#include "loom/bfloat16.h"
#include "loom/float16.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "LoomDropout";

// The scalar value of a float ratio tensor.
double RatioValue(const Tensor& ratio) {
  if (ratio.num_elements() != 1) {
    ThrowKernelError(
        kOp, "input 'ratio' must hold one value (got shape " + ratio.shape().to_string() + ")");
  }
  CheckDType(kOp, "ratio", ratio,
             {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  switch (ratio.dtype()) {
    case DType::kFloat64:
      return ratio.data<double>()[0];
    case DType::kFloat16:
      return static_cast<float>(ratio.data<Float16>()[0]);
    case DType::kBFloat16:
      return static_cast<float>(ratio.data<BFloat16>()[0]);
    default:
      return ratio.data<float>()[0];
  }
}

}  // namespace

std::vector<Tensor> LoomDropoutKernel(const KernelContext&, const Attributes&,
                                      KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 3);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  CheckDType(kOp, "data", data,
             {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  const Tensor* ratio = OptionalInput(inputs, 1);
  const Tensor* mode = OptionalInput(inputs, 2);
  if (mode != nullptr) {
    CheckDType(kOp, "training_mode", *mode, {DType::kBool});
    if (mode->num_elements() != 1) {
      ThrowKernelError(kOp, "input 'training_mode' must hold one value (got shape " +
                                mode->shape().to_string() + ")");
    }
    const double r = ratio != nullptr ? RatioValue(*ratio) : 0.5;  // ONNX's default ratio
    if (mode->data<bool>()[0] && r != 0) {
      ThrowKernelError(kOp, "training_mode = true with ratio " + std::to_string(r) +
                                " is not supported (training drops random elements; Loom runs "
                                "inference)");
    }
  }
  Tensor mask(DType::kBool, data.shape());
  std::fill(mask.data<bool>(), mask.data<bool>() + mask.num_elements(), true);
  return {data, mask};
}

}  // namespace loom::kernels
