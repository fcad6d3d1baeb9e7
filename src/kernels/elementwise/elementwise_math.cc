#include "kernels/elementwise/elementwise_math.h"

#include <cmath>
#include <string_view>
#include <type_traits>

#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

const Tensor& OnlyInput(std::string_view op, KernelInputs inputs, std::string_view name) {
  CheckInputCount(op, inputs, 1, 1);
  return RequiredInput(op, inputs, 0, name);
}

// y[i] = fn(x[i]) for T in parallel: the serial loop over all elements.
template <typename T, typename Out, typename Fn>
Tensor MapTo(const KernelContext& ctx, const Tensor& x, DType out_dtype, Fn fn) {
  Tensor out = Tensor::uninitialized(out_dtype, x.shape());
  const T* in = x.data<T>();
  Out* dst = out.data<Out>();
  ParallelElements(ctx, x.num_elements(), kScalarCallCostNs, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = static_cast<Out>(fn(in[i]));
  });
  return out;
}

// A float op: fn is called with float (float32 and float16, which goes
// through float32) or double.
template <typename Fn>
Tensor FloatOp(const KernelContext& ctx, std::string_view op, std::string_view name,
               const Tensor& x, Fn fn, std::initializer_list<DType> dtypes = kFloatDTypes) {
  CheckDType(op, name, x, dtypes);
  if (ComputesInFloat32(x.dtype())) {  // float16, bfloat16
    return NarrowFromFloat32(FloatOp(ctx, op, name, WidenToFloat32(x), fn, dtypes), x.dtype());
  }
  if (x.dtype() == DType::kFloat64) return MapTo<double, double>(ctx, x, DType::kFloat64, fn);
  return MapTo<float, float>(ctx, x, DType::kFloat32, fn);
}

// A float predicate with a bool output.
template <typename Fn>
Tensor FloatPredicate(const KernelContext& ctx, std::string_view op, const Tensor& x, Fn fn) {
  CheckDType(op, "X", x, kFloatDTypes);
  if (ComputesInFloat32(x.dtype())) return FloatPredicate(ctx, op, WidenToFloat32(x), fn);
  if (x.dtype() == DType::kFloat64) return MapTo<double, bool>(ctx, x, DType::kBool, fn);
  return MapTo<float, bool>(ctx, x, DType::kBool, fn);
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, exact tails.
template <typename T>
T Softplus(T x) {
  return (x > T{0} ? x : T{0}) + std::log1p(std::exp(-std::fabs(x)));
}

template <typename Fn>
std::vector<Tensor> FloatUnaryKernel(const KernelContext& ctx, std::string_view op,
                                     std::string_view name, KernelInputs inputs, Fn fn) {
  return {FloatOp(ctx, op, name, OnlyInput(op, inputs, name), fn)};
}

}  // namespace

std::vector<Tensor> SinKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Sin", "input", inputs, [](auto x) { return std::sin(x); });
}

std::vector<Tensor> CosKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Cos", "input", inputs, [](auto x) { return std::cos(x); });
}

std::vector<Tensor> TanKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Tan", "input", inputs, [](auto x) { return std::tan(x); });
}

std::vector<Tensor> AsinKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Asin", "input", inputs, [](auto x) { return std::asin(x); });
}

std::vector<Tensor> AcosKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Acos", "input", inputs, [](auto x) { return std::acos(x); });
}

std::vector<Tensor> AtanKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Atan", "input", inputs, [](auto x) { return std::atan(x); });
}

std::vector<Tensor> SinhKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Sinh", "input", inputs, [](auto x) { return std::sinh(x); });
}

std::vector<Tensor> CoshKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Cosh", "input", inputs, [](auto x) { return std::cosh(x); });
}

std::vector<Tensor> AsinhKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Asinh", "input", inputs, [](auto x) { return std::asinh(x); });
}

std::vector<Tensor> AcoshKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Acosh", "input", inputs, [](auto x) { return std::acosh(x); });
}

std::vector<Tensor> AtanhKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Atanh", "input", inputs, [](auto x) { return std::atanh(x); });
}

std::vector<Tensor> SoftplusKernel(const KernelContext& ctx, const Attributes&,
                                   KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Softplus", "X", inputs, [](auto x) { return Softplus(x); });
}

std::vector<Tensor> SoftsignKernel(const KernelContext& ctx, const Attributes&,
                                   KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Softsign", "input", inputs,
                          [](auto x) { return x / (decltype(x){1} + std::fabs(x)); });
}

std::vector<Tensor> MishKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Mish", "X", inputs,
                          [](auto x) { return x * std::tanh(Softplus(x)); });
}

// std::rint rounds in the current mode: to nearest even, as nothing in Loom
// changes it.
std::vector<Tensor> RoundKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return FloatUnaryKernel(ctx, "Round", "X", inputs, [](auto x) { return std::rint(x); });
}

std::vector<Tensor> EluKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  const double alpha = attrs.get_float("alpha", 1.0f);
  return {FloatOp(ctx, "Elu", "X", OnlyInput("Elu", inputs, "X"), [alpha](auto x) {
    using T = decltype(x);
    return x < T{0} ? static_cast<T>(alpha) * std::expm1(x) : x;
  })};
}

std::vector<Tensor> SeluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  // ONNX's defaults, the constants of Klambauer et al. rounded to float.
  const double alpha = attrs.get_float("alpha", 1.67326319217681884765625f);
  const double gamma = attrs.get_float("gamma", 1.05070102214813232421875f);
  return {FloatOp(ctx, "Selu", "X", OnlyInput("Selu", inputs, "X"), [alpha, gamma](auto x) {
    using T = decltype(x);
    return static_cast<T>(gamma) * (x <= T{0} ? static_cast<T>(alpha) * std::expm1(x) : x);
  })};
}

std::vector<Tensor> CeluKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  const float alpha = attrs.get_float("alpha", 1.0f);
  if (alpha == 0.0f) ThrowKernelError("Celu", "attribute 'alpha' must not be 0");
  return {FloatOp(ctx, "Celu", "X", OnlyInput("Celu", inputs, "X"),
                  [alpha](auto x) {
                    using T = decltype(x);
                    const T a = static_cast<T>(alpha);
                    return (x > T{0} ? x : T{0}) + std::fmin(T{0}, a * std::expm1(x / a));
                  },
                  {DType::kFloat32})};
}

std::vector<Tensor> ThresholdedReluKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  const double alpha = attrs.get_float("alpha", 1.0f);
  return {FloatOp(ctx, "ThresholdedRelu", "X", OnlyInput("ThresholdedRelu", inputs, "X"),
                  [alpha](auto x) {
                    using T = decltype(x);
                    return x > static_cast<T>(alpha) ? x : T{0};
                  })};
}

std::vector<Tensor> ShrinkKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  const Tensor& x = OnlyInput("Shrink", inputs, "input");
  const double bias = attrs.get_float("bias", 0.0f);
  const double lambd = attrs.get_float("lambd", 0.5f);
  auto shrink = [bias, lambd](double v) {
    return v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0);
  };
  if (x.dtype() == DType::kFloat32 || x.dtype() == DType::kFloat64 ||
      ComputesInFloat32(x.dtype())) {
    return {FloatOp(ctx, "Shrink", "input", x, [shrink](auto v) {
      return static_cast<decltype(v)>(shrink(static_cast<double>(v)));
    })};
  }
  CheckDType("Shrink", "input", x, kNumericDTypes);
  Tensor out;
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      out = MapTo<T, T>(ctx, x, x.dtype(), [shrink](T v) {
        // In double, then truncated toward zero like ONNX's reference
        // (numpy's astype); the results of integer inputs are integers
        // unless bias is fractional.
        return static_cast<T>(shrink(static_cast<double>(v)));
      });
    }
  });
  return {out};
}

std::vector<Tensor> IsNaNKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return {FloatPredicate(ctx, "IsNaN", OnlyInput("IsNaN", inputs, "X"),
                         [](auto x) { return std::isnan(x); })};
}

std::vector<Tensor> IsInfKernel(const KernelContext& ctx, const Attributes& attrs,
                                KernelInputs inputs) {
  const bool positive = attrs.get_int("detect_positive", 1) != 0;
  const bool negative = attrs.get_int("detect_negative", 1) != 0;
  return {FloatPredicate(ctx, "IsInf", OnlyInput("IsInf", inputs, "X"), [=](auto x) {
    return std::isinf(x) && ((x > 0 && positive) || (x < 0 && negative));
  })};
}

}  // namespace loom::kernels
