#include "kernels/elementwise/elementwise_common.h"

#include <limits>
#include <string>

namespace loom::kernels::elementwise {

void CheckSameDType(std::string_view op, std::string_view name_a, const Tensor& a,
                    std::string_view name_b, const Tensor& b) {
  if (a.dtype() == b.dtype()) return;
  ThrowKernelError(op, "inputs '" + std::string(name_a) + "' (" +
                           std::string(dtype_name(a.dtype())) + ") and '" + std::string(name_b) +
                           "' (" + std::string(dtype_name(b.dtype())) +
                           ") must have the same dtype");
}

namespace {

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

template <typename To, typename From>
To ConvertValue(From value) {
  if constexpr (kIsHalf<From>) {
    return ConvertValue<To>(static_cast<float>(value));
  } else if constexpr (kIsHalf<To>) {
    return To(ConvertValue<float>(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From{0};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // Out-of-range float to int is undefined behaviour: saturate, NaN to 0.
    if (!(value == value)) return To{0};
    if (value <= static_cast<From>(std::numeric_limits<To>::min())) {
      return std::numeric_limits<To>::min();
    }
    if (value >= static_cast<From>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

}  // namespace

Tensor ConvertTensor(const Tensor& tensor, DType dtype) {
  if (tensor.dtype() == dtype) return tensor;
  Tensor out(dtype, tensor.shape());
  VisitDType(tensor.dtype(), [&](auto from_tag) {
    using From = decltype(from_tag);
    VisitDType(dtype, [&](auto to_tag) {
      using To = decltype(to_tag);
      const From* in = tensor.data<From>();
      To* result = out.data<To>();
      for (int64_t i = 0; i < tensor.num_elements(); ++i) result[i] = ConvertValue<To>(in[i]);
    });
  });
  return out;
}

void ParallelElements(const KernelContext& ctx, int64_t n, double cost_ns,
                      const threading::RangeFn& body) {
  if (n <= 0) return;
  threading::ParallelFor(ctx.pool, n, cost_ns, body);
}

}  // namespace loom::kernels::elementwise
