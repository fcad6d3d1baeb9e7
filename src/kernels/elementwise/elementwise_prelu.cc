// PRelu: y = x < 0 ? slope * x : x, slope broadcast unidirectionally to X
// (ONNX 7 on), over the elementwise family's broadcast plans. float16 and
// bfloat16 compute in float32; integer products wrap.
#include <string>
#include <type_traits>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_binary_loops.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

constexpr std::string_view kOp = "PRelu";
constexpr std::initializer_list<DType> kPReluDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
    DType::kInt32,   DType::kInt64,   DType::kUInt32,  DType::kUInt64};

struct PReluOp {
  template <typename T>
  T operator()(T x, T slope) const {
    if constexpr (std::is_unsigned_v<T>) {
      return x;  // never negative
    } else {
      return x < T{0} ? WrapMul(slope, x) : x;
    }
  }
};

Tensor PRelu(const KernelContext& ctx, const Tensor& x, const Tensor& slope) {
  if (ComputesInFloat32(x.dtype())) {
    return ConvertTensor(
        PRelu(ctx, ConvertTensor(x, DType::kFloat32), ConvertTensor(slope, DType::kFloat32)),
        x.dtype());
  }
  const Shape* shapes[] = {&x.shape(), &slope.shape()};
  const std::string_view names[] = {"X", "slope"};
  const BroadcastPlan plan = MakeBroadcastPlan(kOp, shapes, names);
  if (!(plan.out_shape == x.shape())) {
    ThrowKernelError(kOp, "input 'slope' " + slope.shape().to_string() +
                              " must broadcast to the shape of input 'X' " + x.shape().to_string() +
                              " (got " + plan.out_shape.to_string() + ")");
  }
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  if (out.num_elements() == 0) return out;
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      RunBinary(ctx, plan, x.data<T>(), slope.data<T>(), out.data<T>(), kCheapCostNs, PReluOp{});
    }
  });
  return out;
}

}  // namespace

std::vector<Tensor> PReluKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 2);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& slope = RequiredInput(kOp, inputs, 1, "slope");
  CheckDType(kOp, "X", x, kPReluDTypes);
  CheckSameDType(kOp, "X", x, "slope", slope);
  return {PRelu(ctx, x, slope)};
}

}  // namespace loom::kernels
