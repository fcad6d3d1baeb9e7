// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot and BitShift on the
// broadcast plans of the elementwise family (elementwise_binary_loops.h).
#include "kernels/elementwise/elementwise_bitwise.h"

#include <string>
#include <type_traits>

#include "kernels/elementwise/elementwise_binary_loops.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

constexpr std::initializer_list<DType> kIntegerDTypes = {
    DType::kInt8,  DType::kUInt8,  DType::kInt16, DType::kUInt16,
    DType::kInt32, DType::kUInt32, DType::kInt64, DType::kUInt64};
constexpr std::initializer_list<DType> kUnsignedDTypes = {DType::kUInt8, DType::kUInt16,
                                                          DType::kUInt32, DType::kUInt64};

// The casts undo the promotion of 8- and 16-bit operands to int.
struct AndOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct OrOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct XorOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};
// Unsigned only. Shifts of the bit width or more are undefined in C++, so
// they are written out as 0.
struct ShiftLeftOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<uint64_t>(b) >= sizeof(T) * 8 ? T{0} : static_cast<T>(a << b);
  }
};
struct ShiftRightOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<uint64_t>(b) >= sizeof(T) * 8 ? T{0} : static_cast<T>(a >> b);
  }
};

// out = op(A, B) with broadcasting, A and B of one of `dtypes`.
template <typename Op>
std::vector<Tensor> IntegerBinary(const KernelContext& ctx, std::string_view op,
                                  std::string_view name_a, std::string_view name_b,
                                  KernelInputs inputs, std::initializer_list<DType> dtypes, Op fn) {
  CheckInputCount(op, inputs, 2, 2);
  const Tensor& a = RequiredInput(op, inputs, 0, name_a);
  const Tensor& b = RequiredInput(op, inputs, 1, name_b);
  CheckDType(op, name_a, a, dtypes);
  CheckDType(op, name_b, b, dtypes);
  CheckSameDType(op, name_a, a, name_b, b);
  const Shape* shapes[] = {&a.shape(), &b.shape()};
  const std::string_view names[] = {name_a, name_b};
  const BroadcastPlan plan = MakeBroadcastPlan(op, shapes, names);
  Tensor out = Tensor::uninitialized(a.dtype(), plan.out_shape);
  if (out.num_elements() == 0) return {out};
  VisitDType(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      RunBinary(ctx, plan, a.data<T>(), b.data<T>(), out.data<T>(), kCheapCostNs, fn);
    }
  });
  return {out};
}

}  // namespace

std::vector<Tensor> BitwiseAndKernel(const KernelContext& ctx, const Attributes&,
                                     KernelInputs inputs) {
  return IntegerBinary(ctx, "BitwiseAnd", "A", "B", inputs, kIntegerDTypes, AndOp{});
}

std::vector<Tensor> BitwiseOrKernel(const KernelContext& ctx, const Attributes&,
                                    KernelInputs inputs) {
  return IntegerBinary(ctx, "BitwiseOr", "A", "B", inputs, kIntegerDTypes, OrOp{});
}

std::vector<Tensor> BitwiseXorKernel(const KernelContext& ctx, const Attributes&,
                                     KernelInputs inputs) {
  return IntegerBinary(ctx, "BitwiseXor", "A", "B", inputs, kIntegerDTypes, XorOp{});
}

std::vector<Tensor> BitwiseNotKernel(const KernelContext& ctx, const Attributes&,
                                     KernelInputs inputs) {
  CheckInputCount("BitwiseNot", inputs, 1, 1);
  const Tensor& x = RequiredInput("BitwiseNot", inputs, 0, "X");
  CheckDType("BitwiseNot", "X", x, kIntegerDTypes);
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* in = x.data<T>();
      T* dst = out.data<T>();
      // Serial equivalent: for i < n: dst[i] = ~in[i].
      ParallelElements(ctx, x.num_elements(), kCheapCostNs, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst[i] = static_cast<T>(~in[i]);
      });
    }
  });
  return {out};
}

std::vector<Tensor> BitShiftKernel(const KernelContext& ctx, const Attributes& attrs,
                                   KernelInputs inputs) {
  if (!attrs.has("direction")) {
    ThrowKernelError("BitShift",
                     "required attribute 'direction' (\"LEFT\" or \"RIGHT\") is missing");
  }
  const std::string direction = attrs.get_string("direction");
  if (direction == "LEFT") {
    return IntegerBinary(ctx, "BitShift", "X", "Y", inputs, kUnsignedDTypes, ShiftLeftOp{});
  }
  if (direction == "RIGHT") {
    return IntegerBinary(ctx, "BitShift", "X", "Y", inputs, kUnsignedDTypes, ShiftRightOp{});
  }
  ThrowKernelError("BitShift", "attribute 'direction' must be \"LEFT\" or \"RIGHT\" (got \"" +
                                   direction + "\")");
}

}  // namespace loom::kernels
