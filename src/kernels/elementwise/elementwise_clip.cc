// Clip: y = min(max(x, min), max). The bounds come from optional inputs 1
// and 2 (opset >= 11, one-element tensors of the input's dtype) or, in
// opset 6, from float attributes "min" and "max"; an input wins over an
// attribute, and an absent bound is no bound. When min > max every element
// becomes max (ONNX).
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/elementwise/activation.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

constexpr std::string_view kOp = "Clip";
constexpr int64_t kBlock = 2048;  // as in elementwise_unary.cc: stays in L1

// The bound as T from input `index` or attribute `name`; nullopt if neither.
template <typename T>
std::optional<T> Bound(const Attributes& attrs, KernelInputs inputs, size_t index,
                       std::string_view name, DType input_dtype) {
  if (const Tensor* bound = OptionalInput(inputs, index)) {
    CheckDType(kOp, name, *bound, {input_dtype});
    if (bound->num_elements() != 1) {
      ThrowKernelError(kOp, "input '" + std::string(name) + "' must be a scalar (got shape " +
                                bound->shape().to_string() + ")");
    }
    return ConvertTensor(*bound, dtype_of<T>()).template data<T>()[0];
  }
  if (attrs.has(name)) {
    const float value = attrs.get_float(name);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(value);
    } else {
      Tensor scalar = Tensor::from_vector<float>(Shape{}, {value});
      return ConvertTensor(scalar, dtype_of<T>()).template data<T>()[0];
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<Tensor> ClipKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "input");
  CheckDType(kOp, "input", x, kNumericDTypes);
  // float16 and bfloat16 bounds and data are clipped in float32 (exact: the
  // result is one of the inputs).
  const bool widened = ComputesInFloat32(x.dtype());
  const DType compute = widened ? DType::kFloat32 : x.dtype();
  const Tensor data = ConvertTensor(x, compute);
  Tensor out = Tensor::uninitialized(compute, x.shape());
  VisitDType(compute, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      auto read = [&](size_t index, std::string_view name) -> std::optional<T> {
        if (widened) {
          if (const Tensor* bound = OptionalInput(inputs, index)) {
            CheckDType(kOp, name, *bound, {x.dtype()});
            const Tensor wide = ConvertTensor(*bound, DType::kFloat32);
            const Tensor* list[] = {&wide};
            return Bound<T>(attrs, KernelInputs(list, 1), 0, name, compute);
          }
        }
        return Bound<T>(attrs, inputs, index, name, compute);
      };
      constexpr bool kFloat = std::is_floating_point_v<T>;
      const T low = read(1, "min").value_or(kFloat ? -std::numeric_limits<T>::infinity()
                                                   : std::numeric_limits<T>::lowest());
      const T high = read(2, "max").value_or(kFloat ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max());
      const T* in = data.data<T>();
      T* dst = out.data<T>();
      if constexpr (std::is_same_v<T, float>) {
        const Activation clip{ActivationKind::kClip, low, high};
        // Serial loop replaced: for each block: copy, ApplyActivation.
        ParallelElements(ctx, x.num_elements(), kCheapCostNs, [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; b += kBlock) {
            const int64_t length = std::min(kBlock, end - b);
            std::copy(in + b, in + b + length, dst + b);
            ApplyActivation(clip, dst + b, length, ctx.isa);
          }
        });
      } else {
        ParallelElements(ctx, x.num_elements(), kCheapCostNs, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const T v = in[i] < low ? low : in[i];
            dst[i] = v > high ? high : v;
          }
        });
      }
    }
  });
  if (widened) return {ConvertTensor(out, x.dtype())};
  return {out};
}

}  // namespace loom::kernels
