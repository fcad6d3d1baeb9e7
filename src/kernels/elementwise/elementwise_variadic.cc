// Variadic Max, Min, Sum, Mean: N >= 1 inputs broadcast together, folded
// left to right (((data_0 op data_1) op data_2) ...), each step one
// broadcast binary pass. Mean is that sum divided by N.
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_binary_loops.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

template <typename T>
constexpr bool kIsComputeType = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// NaN wins, as numpy.maximum / ONNX Max: a != a only for NaN; a NaN in b
// fails `a > b` and is returned as b.
struct MaxOp {
  template <typename T>
  T operator()(T a, T b) const {
    return (a > b || a != a) ? a : b;
  }
};
struct MinOp {
  template <typename T>
  T operator()(T a, T b) const {
    return (a < b || a != a) ? a : b;
  }
};
struct SumOp {
  template <typename T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};

// Sum: ONNX takes float types only; the 8-, 32- and 64-bit integers are a
// Loom extension kept from before the 16-bit and unsigned wide types, which
// follow ONNX.
constexpr std::initializer_list<DType> kSumDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
    DType::kInt8,    DType::kUInt8,   DType::kInt32,   DType::kInt64};

template <typename Op>
Tensor Fold(const KernelContext& ctx, std::string_view op, const std::vector<Tensor>& tensors,
            Op fn, bool mean) {
  const DType dtype = tensors[0].dtype();
  if (ComputesInFloat32(dtype)) {  // the whole fold in float32, rounded once at the end
    std::vector<Tensor> wide;
    for (const Tensor& t : tensors) wide.push_back(ConvertTensor(t, DType::kFloat32));
    return ConvertTensor(Fold(ctx, op, wide, fn, mean), dtype);
  }
  // Validate the whole broadcast first so the error names the input at fault.
  Shape out_shape = tensors[0].shape();
  for (size_t k = 1; k < tensors.size(); ++k) {
    const Shape* shapes[] = {&out_shape, &tensors[k].shape()};
    const std::string earlier = k == 1 ? "data_0" : "data_0..data_" + std::to_string(k - 1);
    const std::string current = "data_" + std::to_string(k);
    const std::string_view names[] = {earlier, current};
    out_shape = MakeBroadcastPlan(op, shapes, names).out_shape;
  }
  Tensor acc = tensors[0].clone();
  for (size_t k = 1; k < tensors.size(); ++k) {
    const Shape* shapes[] = {&acc.shape(), &tensors[k].shape()};
    const std::string_view names[] = {"data_0", "data_k"};
    const BroadcastPlan plan = MakeBroadcastPlan(op, shapes, names);
    // Reuse the accumulator when it already has the output shape.
    Tensor out = plan.out_shape == acc.shape() ? acc : Tensor(dtype, plan.out_shape);
    if (out.num_elements() > 0) {
      VisitDType(dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (kIsComputeType<T>) {
          RunBinary(ctx, plan, acc.data<T>(), tensors[k].data<T>(), out.data<T>(), kCheapCostNs,
                    fn);
        }
      });
    }
    acc = out;
  }
  if (mean && tensors.size() > 1 && acc.num_elements() > 0) {
    VisitDType(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        T* data = acc.data<T>();
        const T count = static_cast<T>(tensors.size());
        ParallelElements(ctx, acc.num_elements(), kDivideCostNs, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) data[i] = data[i] / count;
        });
      }
    });
  }
  return acc;
}

template <typename Op>
std::vector<Tensor> VariadicKernel(const KernelContext& ctx, std::string_view op,
                                   KernelInputs inputs, std::initializer_list<DType> dtypes, Op fn,
                                   bool mean = false) {
  if (inputs.empty()) ThrowKernelError(op, "expected at least 1 input, got 0");
  std::vector<Tensor> tensors;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string name = "data_" + std::to_string(k);
    const Tensor& t = RequiredInput(op, inputs, k, name);
    CheckDType(op, name, t, dtypes);
    if (k > 0) CheckSameDType(op, "data_0", tensors[0], name, t);
    tensors.push_back(t);
  }
  return {Fold(ctx, op, tensors, fn, mean)};
}

}  // namespace

std::vector<Tensor> MaxKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return VariadicKernel(ctx, "Max", inputs, kNumericDTypes, MaxOp{});
}

std::vector<Tensor> MinKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return VariadicKernel(ctx, "Min", inputs, kNumericDTypes, MinOp{});
}

std::vector<Tensor> SumKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return VariadicKernel(ctx, "Sum", inputs, kSumDTypes, SumOp{});
}

std::vector<Tensor> MeanKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return VariadicKernel(ctx, "Mean", inputs, kFloatDTypes, SumOp{}, /*mean=*/true);
}

}  // namespace loom::kernels
