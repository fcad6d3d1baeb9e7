// Cast: one templated loop per (source, target) dtype pair, so the compiler
// sees plain static_casts it can vectorize; the rules that make every
// conversion defined (saturation, NaN -> 0) live in Convert below.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/dtype_visit.h"
#include "kernels/onnx_dtype.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "kernels/strings/string_ops.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Guess: a converting copy costs ~0.5 ns per element on one core.
constexpr double kConvertNsPerElement = 0.5;

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// Float -> integer, truncating toward zero (ONNX). Out of range, ONNX leaves
// the result to the implementation and a plain static_cast would be UB in
// C++: Loom saturates to the integer type's min / max, and NaN becomes 0.
// Both bounds are powers of two (exact in float and double), and any x
// strictly between them truncates to a value inside [min, max], so the
// final cast is defined. (uint64's bound is 2^64: kAboveMax below.)
template <typename To, typename From>
To SaturatingCast(From x) {
  if (std::isnan(x)) return To{0};
  constexpr double kMin = static_cast<double>(std::numeric_limits<To>::min());
  constexpr double kAboveMax = static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2.0;
  if (static_cast<double>(x) <= kMin) return std::numeric_limits<To>::min();
  if (static_cast<double>(x) >= kAboveMax) return std::numeric_limits<To>::max();
  return static_cast<To>(x);
}

// float16 and bfloat16 convert through float32: widening is exact, and
// narrowing rounds to nearest even (float64 -> float16 / bfloat16 rounds
// twice, to float32 first, which can differ from one rounding on a rare
// near-tie).
template <typename To, typename From>
To Convert(From x) {
  if constexpr (kIsHalf<From>) {
    return Convert<To>(static_cast<float>(x));
  } else if constexpr (kIsHalf<To>) {
    return To(Convert<float>(x));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From{0};
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(x ? 1 : 0);
  } else if constexpr (kIsFloat<From> && !kIsFloat<To>) {
    return SaturatingCast<To>(x);
  } else {
    // int -> int wraps modulo 2^bits (defined since C++20); int -> float
    // and double -> float round to nearest.
    return static_cast<To>(x);
  }
}

template <typename To, typename From>
void ConvertLoop(const KernelContext& ctx, const From* in, To* out, int64_t count) {
  // Serial loop replaced: for (i = 0; i < count; ++i) out[i] = Convert(in[i]).
  threading::ParallelFor(ctx.pool, count, kConvertNsPerElement, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = Convert<To>(in[i]);
  });
}

}  // namespace

namespace shape_ops {

void ConvertElements(const KernelContext& ctx, const void* in, DType in_type, void* out,
                     DType out_type, int64_t count) {
  VisitDType(in_type, [&](auto from) {
    using From = decltype(from);
    VisitDType(out_type, [&](auto to) {
      using To = decltype(to);
      ConvertLoop<To, From>(ctx, static_cast<const From*>(in), static_cast<To*>(out), count);
    });
  });
}

}  // namespace shape_ops

std::vector<Tensor> CastKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  constexpr std::string_view kOp = "Cast";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& input = RequiredInput(kOp, inputs, 0, "input");
  if (!attrs.has("to")) ThrowKernelError(kOp, "attribute 'to' is required");
  const int64_t code = attrs.get_int("to");
  const std::optional<DType> target = DTypeFromOnnxDataType(code);
  if (!target) {
    ThrowKernelError(kOp, "attribute 'to' = " + std::to_string(code) +
                              " is not a supported ONNX data type (expected one of " +
                              SupportedOnnxDataTypes() + ")");
  }
  const DType to = *target;
  // Same dtype: the input itself, like Identity (no copy).
  if (to == input.dtype()) return {input};
  if (to == DType::kString || input.dtype() == DType::kString) return {CastStrings(input, to)};
  Tensor output(to, input.shape());
  if (output.num_elements() > 0) {
    shape_ops::ConvertElements(ctx, input.raw_data(), input.dtype(), output.raw_data(), to,
                               output.num_elements());
  }
  return {output};
}

}  // namespace loom::kernels
