// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (quant.h).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/onnx_dtype.h"
#include "kernels/quant/quant.h"
#include "kernels/quant/quant_common.h"
#include "loom/bfloat16.h"
#include "loom/float16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

using quant::IntRange;
using quant::QuantLayout;
using quant::RoundTo;

// Runs body(offset, count, param, step) over spans of x's elements in
// parallel, where element offset + j reads parameter param + step * j: per
// tensor, chunks of 4096 elements (param 0, step 0); per axis, rows of
// `inner` (param a, step 0); blocked, rows of `inner` (step 1). The serial
// loop: the spans in order.
template <typename Body>
void ForEachSpan(const KernelContext& ctx, const QuantLayout& layout, Body body) {
  if (layout.mode == QuantLayout::kPerTensor) {
    constexpr int64_t kChunk = 4096;
    const int64_t total = layout.n;
    threading::ParallelFor(ctx.pool, (total + kChunk - 1) / kChunk, 2.0 * kChunk,
                           [&](int64_t begin, int64_t end) {
                             for (int64_t c = begin; c < end; ++c) {
                               body(c * kChunk, std::min(kChunk, total - c * kChunk), 0, 0);
                             }
                           });
    return;
  }
  const int64_t rows = layout.outer * layout.n;
  const bool blocked = layout.mode == QuantLayout::kBlocked;
  threading::ParallelFor(
      ctx.pool, rows, 2.0 * static_cast<double>(layout.inner), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t o = r / layout.n, a = r % layout.n;
          body(r * layout.inner, layout.inner, layout.Index(o, a, 0), blocked ? 1 : 0);
        }
      });
}

// The dtype an ONNX output_dtype attribute names, or nullopt for 0 (unset).
std::optional<DType> OutputDType(std::string_view op, const Attributes& attrs,
                                 std::initializer_list<DType> allowed, const char* what) {
  const int64_t code = attrs.get_int("output_dtype", 0);
  if (code == 0) return std::nullopt;
  const std::optional<DType> dtype = DTypeFromOnnxDataType(code);
  if (!dtype || std::find(allowed.begin(), allowed.end(), *dtype) == allowed.end()) {
    ThrowKernelError(
        op, "output_dtype " + std::to_string(code) + " is not supported (Loom " + what + ")");
  }
  return dtype;
}

}  // namespace

std::vector<Tensor> QuantizeLinearKernel(const KernelContext& ctx, const Attributes& attrs,
                                         KernelInputs inputs) {
  constexpr std::string_view kOp = "QuantizeLinear";
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
  const Tensor& scale = RequiredInput(kOp, inputs, 1, "y_scale");
  const Tensor* zero_point = OptionalInput(inputs, 2);
  CheckDType(kOp, "x", x, {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt32});
  CheckDType(kOp, "y_scale", scale,
             {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kInt32});
  const std::initializer_list<DType> kQuantTypes = {DType::kInt8, DType::kUInt8, DType::kInt16,
                                                    DType::kUInt16};
  if (zero_point != nullptr) CheckDType(kOp, "y_zero_point", *zero_point, kQuantTypes);
  const std::optional<DType> requested =
      OutputDType(kOp, attrs, kQuantTypes, "quantizes to int8, uint8, int16 and uint16");
  if (requested && zero_point != nullptr && *requested != zero_point->dtype()) {
    ThrowKernelError(kOp, "output_dtype " + std::string(dtype_name(*requested)) +
                              " differs from y_zero_point's dtype " +
                              std::string(dtype_name(zero_point->dtype())));
  }
  const DType out_dtype =
      zero_point != nullptr ? zero_point->dtype() : requested.value_or(DType::kUInt8);

  // The division's precision: the precision attribute (23), else the
  // scale's type; float16 and bfloat16 divide in float32 and round once.
  DType precision = scale.dtype();
  if (const int64_t code = attrs.get_int("precision", 0); code != 0) {
    const std::optional<DType> p = DTypeFromOnnxDataType(code);
    if (!p || (*p != DType::kFloat32 && *p != DType::kFloat16 && *p != DType::kBFloat16)) {
      ThrowKernelError(kOp, "precision " + std::to_string(code) +
                                " is not supported (float32, float16 or bfloat16)");
    }
    precision = *p;
  }

  const QuantLayout layout =
      quant::ResolveQuantLayout(kOp, x.shape(), scale, zero_point, "y_scale",
                                attrs.get_int("axis", 1), attrs.get_int("block_size", 0));
  const std::vector<float> scales = quant::ReadFloats(scale);
  const std::vector<int32_t> zeros =
      zero_point != nullptr ? quant::ReadInts(*zero_point) : std::vector<int32_t>(scales.size(), 0);
  const IntRange range = quant::RangeOf(out_dtype);

  Tensor y = Tensor::uninitialized(out_dtype, x.shape());
  const bool narrow = precision == DType::kFloat16 || precision == DType::kBFloat16;
  const bool avx512 = quant::UseAvx512Spans(ctx.isa);
  VisitDType(x.dtype(), [&](auto xtag) {
    using X = decltype(xtag);
    if constexpr (std::is_same_v<X, float> || std::is_same_v<X, Float16> ||
                  std::is_same_v<X, BFloat16> || std::is_same_v<X, int32_t>) {
      const X* xp = x.data<X>();
      VisitDType(out_dtype, [&](auto ytag) {
        using Y = decltype(ytag);
        if constexpr (std::is_same_v<Y, int8_t> || std::is_same_v<Y, uint8_t> ||
                      std::is_same_v<Y, int16_t> || std::is_same_v<Y, uint16_t>) {
          Y* yp = y.data<Y>();
          ForEachSpan(ctx, layout, [&](int64_t offset, int64_t count, int64_t param, int64_t step) {
            if constexpr (std::is_same_v<X, float>) {
              if (!narrow && step == 0) {
                // One scale for the span (per tensor, or a per-axis row).
                if constexpr (std::is_same_v<Y, int8_t> || std::is_same_v<Y, uint8_t>) {
                  if (avx512) {
                    quant::QuantizeSpanAvx512(xp + offset, yp + offset, count,
                                              scales[static_cast<size_t>(param)],
                                              zeros[static_cast<size_t>(param)], range);
                    return;
                  }
                }
                quant::QuantizeSpan(xp + offset, yp + offset, count,
                                    scales[static_cast<size_t>(param)],
                                    zeros[static_cast<size_t>(param)], range);
                return;
              }
            }
            for (int64_t j = 0; j < count; ++j) {
              const auto p = static_cast<size_t>(param + step * j);
              const float s = scales[p];
              double q;
              if constexpr (std::is_same_v<X, int32_t>) {
                // int32 / float: float64 (ONNX's reference), rounded to a
                // narrower precision when one is asked for.
                q = static_cast<double>(xp[offset + j]) / static_cast<double>(s);
                if (narrow) q = RoundTo(precision, static_cast<float>(q));
              } else if (narrow) {
                q = RoundTo(precision, RoundTo(precision, static_cast<float>(xp[offset + j])) /
                                           RoundTo(precision, s));
              } else {
                yp[offset + j] = static_cast<Y>(quant::RoundSaturateFloat(
                    static_cast<float>(xp[offset + j]) / s, zeros[p], range));
                continue;
              }
              yp[offset + j] = static_cast<Y>(quant::RoundSaturate(q, zeros[p], range));
            }
          });
        }
      });
    }
  });
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

std::vector<Tensor> DequantizeLinearKernel(const KernelContext& ctx, const Attributes& attrs,
                                           KernelInputs inputs) {
  constexpr std::string_view kOp = "DequantizeLinear";
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
  const Tensor& scale = RequiredInput(kOp, inputs, 1, "x_scale");
  const Tensor* zero_point = OptionalInput(inputs, 2);
  CheckDType(kOp, "x", x,
             {DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kInt32});
  CheckDType(kOp, "x_scale", scale, {DType::kFloat32, DType::kFloat16, DType::kBFloat16});
  if (zero_point != nullptr && zero_point->dtype() != x.dtype()) {
    ThrowKernelError(kOp, "input 'x_zero_point' must have x's dtype " +
                              std::string(dtype_name(x.dtype())) + " (got " +
                              std::string(dtype_name(zero_point->dtype())) + ")");
  }
  const DType out_dtype =
      OutputDType(kOp, attrs, {DType::kFloat32, DType::kFloat16, DType::kBFloat16},
                  "dequantizes to float32, float16 and bfloat16")
          .value_or(scale.dtype());
  const QuantLayout layout =
      quant::ResolveQuantLayout(kOp, x.shape(), scale, zero_point, "x_scale",
                                attrs.get_int("axis", 1), attrs.get_int("block_size", 0));
  const std::vector<float> scales = quant::ReadFloats(scale);
  const std::vector<int32_t> zeros =
      zero_point != nullptr ? quant::ReadInts(*zero_point) : std::vector<int32_t>(scales.size(), 0);

  Tensor y = Tensor::uninitialized(out_dtype, x.shape());
  VisitDType(x.dtype(), [&](auto xtag) {
    using X = decltype(xtag);
    if constexpr (std::is_integral_v<X>) {
      const X* xp = x.data<X>();
      VisitDType(out_dtype, [&](auto ytag) {
        using Y = decltype(ytag);
        if constexpr (std::is_same_v<Y, float> || std::is_same_v<Y, Float16> ||
                      std::is_same_v<Y, BFloat16>) {
          Y* yp = y.data<Y>();
          ForEachSpan(ctx, layout, [&](int64_t offset, int64_t count, int64_t param, int64_t step) {
            for (int64_t j = 0; j < count; ++j) {
              const auto p = static_cast<size_t>(param + step * j);
              if constexpr (sizeof(X) <= 2) {
                // x - zero is exact in float32 and the product rounds once,
                // as the float64 product (exact) rounded to float32 does.
                yp[offset + j] =
                    Y(static_cast<float>(static_cast<int32_t>(xp[offset + j]) - zeros[p]) *
                      scales[p]);
              } else {
                // int32: float64, exact but for the largest values; one rounding.
                const double v =
                    (static_cast<double>(xp[offset + j]) - static_cast<double>(zeros[p])) *
                    static_cast<double>(scales[p]);
                yp[offset + j] = Y(static_cast<float>(v));
              }
            }
          });
        }
      });
    }
  });
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  return out;
}

std::vector<Tensor> DynamicQuantizeLinearKernel(const KernelContext& /*ctx*/,
                                                const Attributes& /*attrs*/, KernelInputs inputs) {
  constexpr std::string_view kOp = "DynamicQuantizeLinear";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "x");
  CheckDType(kOp, "x", x, {DType::kFloat32});
  const float* xp = x.data<float>();
  const int64_t count = x.num_elements();
  // The range always includes 0, so 0 is exactly representable.
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < count; ++i) {
    lo = std::min(lo, xp[i]);
    hi = std::max(hi, xp[i]);
  }
  const float scale = (hi == lo ? 1.0f : hi - lo) / 255.0f;
  const float initial_zero = 0.0f - lo / scale;
  const float zero = std::nearbyint(std::clamp(initial_zero, 0.0f, 255.0f));
  const int32_t zero_point = static_cast<int32_t>(zero);
  Tensor y = Tensor::uninitialized(DType::kUInt8, x.shape());
  uint8_t* yp = y.data<uint8_t>();
  const IntRange range{0, 255};
  for (int64_t i = 0; i < count; ++i) {
    yp[i] = static_cast<uint8_t>(quant::RoundSaturate(xp[i] / scale, zero_point, range));
  }
  std::vector<Tensor> out;
  out.push_back(std::move(y));
  out.push_back(Tensor::from_vector<float>(Shape(), {scale}));
  out.push_back(Tensor::from_vector<uint8_t>(Shape(), {static_cast<uint8_t>(zero_point)}));
  return out;
}

}  // namespace loom::kernels
