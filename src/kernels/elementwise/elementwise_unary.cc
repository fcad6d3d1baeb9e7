// Unary elementwise kernels. float32 activations run ApplyActivation (one
// implementation shared with GEMM and Conv fusion) on L1-sized blocks of
// the output; Exp, Log and Erf use the per-ISA vector math table; other
// dtypes use plain templated loops. float16 and bfloat16 go through float32.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/elementwise/activation.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_common.h"
#include "kernels/elementwise/elementwise_vector_math.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

// Neg (ONNX: signed types only).
constexpr std::initializer_list<DType> kSignedDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
    DType::kInt8,    DType::kInt16,   DType::kInt32,   DType::kInt64};
// Relu: ONNX's signed types; uint8 is a Loom extension kept from before the
// wider integer types.
constexpr std::initializer_list<DType> kReluDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
    DType::kUInt8,   DType::kInt16,   DType::kInt32,   DType::kInt64};

// The activation in double (the float64 path).
double ActivationValue(const Activation& a, double x) {
  switch (a.kind) {
    case ActivationKind::kIdentity:
      return x;
    case ActivationKind::kRelu:
      return x < 0 ? 0.0 : x;
    case ActivationKind::kLeakyRelu:
      return x < 0 ? a.alpha * x : x;
    case ActivationKind::kClip: {
      const double low = x < a.alpha ? a.alpha : x;
      return low > a.beta ? a.beta : low;
    }
    case ActivationKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case ActivationKind::kTanh:
      return std::tanh(x);
    case ActivationKind::kHardSigmoid: {
      const double y = a.alpha * x + a.beta;
      return y < 0 ? 0.0 : (y > 1 ? 1.0 : y);
    }
    case ActivationKind::kHardSwish: {
      const double y = x / 6.0 + 0.5;
      return x * (y < 0 ? 0.0 : (y > 1 ? 1.0 : y));
    }
    case ActivationKind::kSilu:
      return x / (1.0 + std::exp(-x));
    case ActivationKind::kGelu:
      return a.gelu_tanh
                 ? 0.5 * x * (1.0 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)))
                 : 0.5 * x * (1.0 + std::erf(x * 0.70710678118654752440));
  }
  return x;
}

// out[i] = fn(x[i]) for T, in parallel: the serial loop over all elements.
template <typename T, typename Fn>
Tensor Map(const KernelContext& ctx, const Tensor& x, double cost_ns, Fn fn) {
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  const T* in = x.data<T>();
  T* dst = out.data<T>();
  ParallelElements(ctx, x.num_elements(), cost_ns, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = fn(in[i]);
  });
  return out;
}

// An activation over float32 / float64 / float16 / bfloat16 input.
Tensor ActivationOp(const KernelContext& ctx, std::string_view op, const Tensor& x,
                    const Activation& activation, double cost_ns, std::string_view name = "X") {
  CheckDType(op, name, x, kFloatDTypes);
  if (ComputesInFloat32(x.dtype())) {
    return ConvertTensor(
        ActivationOp(ctx, op, ConvertTensor(x, DType::kFloat32), activation, cost_ns, name),
        x.dtype());
  }
  if (x.dtype() == DType::kFloat64) {
    return Map<double>(ctx, x, kScalarCallCostNs,
                       [&](double v) { return ActivationValue(activation, v); });
  }
  Tensor out = Tensor::uninitialized(DType::kFloat32, x.shape());
  const float* in = x.data<float>();
  float* dst = out.data<float>();
  // Serial loop replaced: dst[i] = f(in[i]) for every i.
  ParallelElements(ctx, x.num_elements(), cost_ns, [&](int64_t begin, int64_t end) {
    ApplyActivation(activation, in + begin, dst + begin, end - begin, ctx.isa);
  });
  return out;
}

enum class MathFn { kExp, kLog, kErf, kFloor, kCeil };

double MathValue(MathFn which, double v) {
  switch (which) {
    case MathFn::kExp:
      return std::exp(v);
    case MathFn::kLog:
      return std::log(v);
    case MathFn::kErf:
      return std::erf(v);
    case MathFn::kFloor:
      return std::floor(v);
    case MathFn::kCeil:
      return std::ceil(v);
  }
  return v;
}

F32UnaryFn MathKernel(const F32MathKernels& math, MathFn which) {
  switch (which) {
    case MathFn::kExp:
      return math.exp;
    case MathFn::kLog:
      return math.log;
    case MathFn::kErf:
      return math.erf;
    case MathFn::kFloor:
      return math.floor;
    case MathFn::kCeil:
      return math.ceil;
  }
  return math.exp;
}

// Exp, Log, Erf, Floor, Ceil: float32 through the vector math table.
Tensor MathOp(const KernelContext& ctx, std::string_view op, const Tensor& x, MathFn which) {
  const bool rounding = which == MathFn::kFloor || which == MathFn::kCeil;
  CheckDType(op, rounding ? "X" : "input", x, kFloatDTypes);
  if (ComputesInFloat32(x.dtype())) {
    return ConvertTensor(MathOp(ctx, op, ConvertTensor(x, DType::kFloat32), which), x.dtype());
  }
  if (x.dtype() == DType::kFloat64) {
    return Map<double>(ctx, x, kScalarCallCostNs,
                       [which](double v) { return MathValue(which, v); });
  }
  const F32UnaryFn fn = MathKernel(F32MathFor(ctx.isa), which);
  const double cost_ns = ctx.isa == Isa::kPortable ? kScalarCallCostNs : kTranscendentalCostNs;
  Tensor out = Tensor::uninitialized(DType::kFloat32, x.shape());
  const float* in = x.data<float>();
  float* dst = out.data<float>();
  ParallelElements(ctx, x.num_elements(), cost_ns,
                   [&](int64_t begin, int64_t end) { fn(in + begin, dst + begin, end - begin); });
  return {out};
}

// A plain map over the dtypes in `dtypes` (float16 and bfloat16 through
// float32).
template <typename Fn>
Tensor SimpleOp(const KernelContext& ctx, std::string_view op, std::string_view name,
                const Tensor& x, std::initializer_list<DType> dtypes, double cost_ns, Fn fn) {
  CheckDType(op, name, x, dtypes);
  if (ComputesInFloat32(x.dtype())) {
    return ConvertTensor(
        SimpleOp(ctx, op, name, ConvertTensor(x, DType::kFloat32), dtypes, cost_ns, fn), x.dtype());
  }
  Tensor out;
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      out = Map<T>(ctx, x, cost_ns, [&fn](T v) { return static_cast<T>(fn(v)); });
    }
  });
  return out;
}

const Tensor& OnlyInput(std::string_view op, KernelInputs inputs, std::string_view name) {
  CheckInputCount(op, inputs, 1, 1);
  return RequiredInput(op, inputs, 0, name);
}

// `name` is the ONNX input name: "X" for most, "input" for Tanh.
std::vector<Tensor> ActivationKernel(const KernelContext& ctx, std::string_view op,
                                     KernelInputs inputs, const Activation& activation,
                                     double cost_ns, std::string_view name = "X") {
  return {ActivationOp(ctx, op, OnlyInput(op, inputs, name), activation, cost_ns, name)};
}

double ActivationCost(const KernelContext& ctx) {
  return ctx.isa == Isa::kPortable ? kScalarCallCostNs : kTranscendentalCostNs;
}

}  // namespace

std::vector<Tensor> NegKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {SimpleOp(ctx, "Neg", "X", OnlyInput("Neg", inputs, "X"), kSignedDTypes, kCheapCostNs,
                   [](auto v) { return WrapSub(decltype(v){0}, v); })};
}

std::vector<Tensor> AbsKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {SimpleOp(ctx, "Abs", "X", OnlyInput("Abs", inputs, "X"), kNumericDTypes, kCheapCostNs,
                   [](auto v) {
                     using T = decltype(v);
                     if constexpr (std::is_floating_point_v<T>) {
                       return std::fabs(v);
                     } else if constexpr (std::is_signed_v<T>) {
                       return v < 0 ? WrapSub(T{0}, v) : v;
                     } else {
                       return v;
                     }
                   })};
}

std::vector<Tensor> SqrtKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {SimpleOp(ctx, "Sqrt", "X", OnlyInput("Sqrt", inputs, "X"), kFloatDTypes, kDivideCostNs,
                   [](auto v) { return std::sqrt(v); })};
}

std::vector<Tensor> ReciprocalKernel(const KernelContext& ctx, const Attributes&,
                                     KernelInputs inputs) {
  return {SimpleOp(ctx, "Reciprocal", "X", OnlyInput("Reciprocal", inputs, "X"), kFloatDTypes,
                   kDivideCostNs, [](auto v) { return decltype(v){1} / v; })};
}

std::vector<Tensor> FloorKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {MathOp(ctx, "Floor", OnlyInput("Floor", inputs, "X"), MathFn::kFloor)};
}

std::vector<Tensor> CeilKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {MathOp(ctx, "Ceil", OnlyInput("Ceil", inputs, "X"), MathFn::kCeil)};
}

std::vector<Tensor> SignKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {SimpleOp(ctx, "Sign", "input", OnlyInput("Sign", inputs, "input"), kNumericDTypes,
                   kCheapCostNs, [](auto v) {
                     using T = decltype(v);
                     // NaN compares false both ways and stays NaN (v - v).
                     if constexpr (std::is_floating_point_v<T>) {
                       if (v != v) return v;
                     }
                     if constexpr (std::is_unsigned_v<T>) {
                       return static_cast<T>(v != T{0});
                     } else {
                       return static_cast<T>((T{0} < v) - (v < T{0}));
                     }
                   })};
}

std::vector<Tensor> ExpKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {MathOp(ctx, "Exp", OnlyInput("Exp", inputs, "input"), MathFn::kExp)};
}

std::vector<Tensor> LogKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {MathOp(ctx, "Log", OnlyInput("Log", inputs, "input"), MathFn::kLog)};
}

std::vector<Tensor> ErfKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {MathOp(ctx, "Erf", OnlyInput("Erf", inputs, "input"), MathFn::kErf)};
}

std::vector<Tensor> ReluKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  const Tensor& x = OnlyInput("Relu", inputs, "X");
  if (x.dtype() == DType::kFloat32 || ComputesInFloat32(x.dtype())) {
    return {ActivationOp(ctx, "Relu", x, {ActivationKind::kRelu}, kCheapCostNs)};
  }
  return {SimpleOp(ctx, "Relu", "X", x, kReluDTypes, kCheapCostNs, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_unsigned_v<T>) {
      return v;
    } else {
      return v < T{0} ? T{0} : v;
    }
  })};
}

std::vector<Tensor> LeakyReluKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  const Activation activation{ActivationKind::kLeakyRelu, attrs.get_float("alpha", 0.01f)};
  return ActivationKernel(ctx, "LeakyRelu", inputs, activation, kCheapCostNs);
}

std::vector<Tensor> SigmoidKernel(const KernelContext& ctx, const Attributes&,
                                  KernelInputs inputs) {
  return ActivationKernel(ctx, "Sigmoid", inputs, {ActivationKind::kSigmoid}, ActivationCost(ctx));
}

std::vector<Tensor> TanhKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return ActivationKernel(ctx, "Tanh", inputs, {ActivationKind::kTanh}, ActivationCost(ctx),
                          "input");
}

std::vector<Tensor> HardSigmoidKernel(const KernelContext& ctx, const Attributes& attrs,
                                      KernelInputs inputs) {
  const Activation activation{ActivationKind::kHardSigmoid, attrs.get_float("alpha", 0.2f),
                              attrs.get_float("beta", 0.5f)};
  return ActivationKernel(ctx, "HardSigmoid", inputs, activation, kCheapCostNs);
}

std::vector<Tensor> HardSwishKernel(const KernelContext& ctx, const Attributes&,
                                    KernelInputs inputs) {
  return ActivationKernel(ctx, "HardSwish", inputs, {ActivationKind::kHardSwish}, kCheapCostNs);
}

std::vector<Tensor> SiluKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return ActivationKernel(ctx, "Silu", inputs, {ActivationKind::kSilu}, ActivationCost(ctx));
}

std::vector<Tensor> GeluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  const std::string approximate = attrs.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    ThrowKernelError("Gelu", "attribute 'approximate' must be \"none\" or \"tanh\" (got \"" +
                                 approximate + "\")");
  }
  Activation activation{ActivationKind::kGelu};
  activation.gelu_tanh = approximate == "tanh";
  return ActivationKernel(ctx, "Gelu", inputs, activation, ActivationCost(ctx));
}

}  // namespace loom::kernels
