// Binary arithmetic: Add, Sub, Mul, Div, Pow, Mod with broadcasting.
//
// Each op is a small functor over one element type; Arithmetic() checks the
// inputs, builds the broadcast plan and runs the functor over it. float16
// and bfloat16 go through float32.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_binary_loops.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

// Element types the arithmetic functors are instantiated for.
template <typename T>
constexpr bool kIsComputeType = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

struct AddOp {
  template <typename T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};
struct SubOp {
  template <typename T>
  T operator()(T a, T b) const {
    return WrapSub(a, b);
  }
};
struct MulOp {
  template <typename T>
  T operator()(T a, T b) const {
    return WrapMul(a, b);
  }
};
// Integer divisors were checked for zero beforehand. x / -1 is negation,
// written as wrap-around subtraction because INT_MIN / -1 traps on x86.
struct DivOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
      if (b == T{-1}) return WrapSub(T{0}, a);
    }
    return a / b;
  }
};
// Python-style remainder (sign of the divisor) for integers, fmod=0.
struct ModOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);  // not reached: floats require fmod=1
    } else if constexpr (std::is_signed_v<T>) {
      if (b == T{-1}) return T{0};
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
};
// C fmod (sign of the dividend), fmod=1.
struct FmodOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fmod(a, b);
    } else if constexpr (std::is_signed_v<T>) {
      return b == T{-1} ? T{0} : static_cast<T>(a % b);
    } else {
      return static_cast<T>(a % b);
    }
  }
};
// Integer powers by squaring, wrapping on overflow. A negative exponent
// gives the truncated 1 / a^-b: 1 for a = 1, +-1 for a = -1, else 0.
struct PowOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          if (a == 1) return T{1};
          if (a == -1) return (b % 2 == 0) ? T{1} : T{-1};
          return T{0};
        }
      }
      T result = 1, base = a;
      for (auto e = b; e > 0; e /= 2) {
        if (e % 2) result = WrapMul(result, base);
        base = WrapMul(base, base);
      }
      return result;
    }
  }
};

// Throws when an integer divisor tensor holds a zero.
template <typename T>
void CheckNoZeroDivisor(std::string_view op, std::string_view name, const Tensor& divisor) {
  const T* data = divisor.data<T>();
  for (int64_t i = 0; i < divisor.num_elements(); ++i) {
    if (data[i] == T{0}) {
      ThrowKernelError(op, "integer division by zero: input '" + std::string(name) +
                               "' has a zero at flat index " + std::to_string(i));
    }
  }
}

constexpr std::initializer_list<DType> kPowBaseDTypes = {DType::kFloat32, DType::kFloat64,
                                                         DType::kFloat16, DType::kBFloat16,
                                                         DType::kInt32,   DType::kInt64};

struct BinarySpec {
  std::string_view op;
  std::string_view name_a = "A";
  std::string_view name_b = "B";
  std::initializer_list<DType> dtypes = kNumericDTypes;
  double cost_ns = kCheapCostNs;
  bool integer_divisor = false;  // check B for zeros on integer dtypes
};

template <typename Op>
Tensor Arithmetic(const KernelContext& ctx, const BinarySpec& spec, const Tensor& a,
                  const Tensor& b, Op op) {
  CheckDType(spec.op, spec.name_a, a, spec.dtypes);
  CheckDType(spec.op, spec.name_b, b, spec.dtypes);
  CheckSameDType(spec.op, spec.name_a, a, spec.name_b, b);
  if (ComputesInFloat32(a.dtype())) {
    const Tensor result = Arithmetic(ctx, spec, ConvertTensor(a, DType::kFloat32),
                                     ConvertTensor(b, DType::kFloat32), op);
    return ConvertTensor(result, a.dtype());
  }
  const Shape* shapes[] = {&a.shape(), &b.shape()};
  const std::string_view names[] = {spec.name_a, spec.name_b};
  const BroadcastPlan plan = MakeBroadcastPlan(spec.op, shapes, names);
  Tensor out = Tensor::uninitialized(a.dtype(), plan.out_shape);
  if (out.num_elements() == 0) return out;
  VisitDType(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (kIsComputeType<T>) {
      if constexpr (std::is_integral_v<T>) {
        if (spec.integer_divisor) CheckNoZeroDivisor<T>(spec.op, spec.name_b, b);
      }
      RunBinary(ctx, plan, a.data<T>(), b.data<T>(), out.data<T>(), spec.cost_ns, op);
    }
  });
  return out;
}

template <typename Op>
std::vector<Tensor> BinaryKernel(const KernelContext& ctx, KernelInputs inputs,
                                 const BinarySpec& spec, Op op) {
  CheckInputCount(spec.op, inputs, 2, 2);
  const Tensor& a = RequiredInput(spec.op, inputs, 0, spec.name_a);
  const Tensor& b = RequiredInput(spec.op, inputs, 1, spec.name_b);
  return {Arithmetic(ctx, spec, a, b, op)};
}

}  // namespace

std::vector<Tensor> AddKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return BinaryKernel(ctx, inputs, {.op = "Add"}, AddOp{});
}

std::vector<Tensor> SubKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return BinaryKernel(ctx, inputs, {.op = "Sub"}, SubOp{});
}

std::vector<Tensor> MulKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return BinaryKernel(ctx, inputs, {.op = "Mul"}, MulOp{});
}

std::vector<Tensor> DivKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return BinaryKernel(ctx, inputs, {.op = "Div", .cost_ns = kDivideCostNs, .integer_divisor = true},
                      DivOp{});
}

std::vector<Tensor> ModKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  const int64_t fmod = attrs.get_int("fmod", 0);
  if (fmod != 0 && fmod != 1) {
    ThrowKernelError("Mod", "attribute 'fmod' must be 0 or 1 (got " + std::to_string(fmod) + ")");
  }
  const BinarySpec spec{.op = "Mod", .cost_ns = kDivideCostNs, .integer_divisor = true};
  if (fmod == 1) return BinaryKernel(ctx, inputs, spec, FmodOp{});
  CheckInputCount(spec.op, inputs, 2, 2);
  const Tensor& a = RequiredInput(spec.op, inputs, 0, "A");
  for (DType dtype : kFloatDTypes) {
    if (a.dtype() == dtype) {
      ThrowKernelError("Mod", "input 'A' has dtype " + std::string(dtype_name(dtype)) +
                                  ", which requires attribute fmod=1 (got fmod=0)");
    }
  }
  return BinaryKernel(ctx, inputs, spec, ModOp{});
}

std::vector<Tensor> PowKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  const BinarySpec spec{.op = "Pow",
                        .name_a = "X",
                        .name_b = "Y",
                        .dtypes = kPowBaseDTypes,
                        .cost_ns = kScalarCallCostNs};
  CheckInputCount(spec.op, inputs, 2, 2);
  const Tensor& x = RequiredInput(spec.op, inputs, 0, "X");
  const Tensor& y = RequiredInput(spec.op, inputs, 1, "Y");
  CheckDType(spec.op, "X", x, spec.dtypes);
  CheckDType(spec.op, "Y", y, kNumericDTypes);
  // ONNX lets the exponent have its own type (T1). An integer base with a
  // float exponent is computed in double and converted back (4 ^ 0.5 = 2);
  // otherwise the exponent is converted to X's dtype.
  if (dtype_is_float(y.dtype()) && !dtype_is_float(x.dtype())) {
    const Tensor result = Arithmetic(ctx, spec, ConvertTensor(x, DType::kFloat64),
                                     ConvertTensor(y, DType::kFloat64), PowOp{});
    return {ConvertTensor(result, x.dtype())};
  }
  return {Arithmetic(ctx, spec, x, ConvertTensor(y, x.dtype()), PowOp{})};
}

}  // namespace loom::kernels
