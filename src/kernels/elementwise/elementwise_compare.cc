// Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual), logic
// (And, Or, Xor, Not) and Where, all producing or selecting by bool.
#include <cstring>
#include <string>
#include <type_traits>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_binary_loops.h"
#include "kernels/elementwise/elementwise_common.h"

namespace loom::kernels {
namespace {

using namespace elementwise;  // NOLINT: this file's helpers

struct EqualOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};
struct LessOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};
struct GreaterOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};
struct LessOrEqualOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct GreaterOrEqualOp {
  template <typename T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};
struct AndOp {
  bool operator()(bool a, bool b) const { return a && b; }
};
struct OrOp {
  bool operator()(bool a, bool b) const { return a || b; }
};
struct XorOp {
  bool operator()(bool a, bool b) const { return a != b; }
};

constexpr std::initializer_list<DType> kEqualDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kInt8,
    DType::kUInt8,   DType::kInt16,   DType::kUInt16,  DType::kInt32,    DType::kUInt32,
    DType::kInt64,   DType::kUInt64,  DType::kBool};
constexpr std::initializer_list<DType> kBoolDType = {DType::kBool};

// out (bool) = op(A, B) with broadcasting.
template <typename Op>
std::vector<Tensor> Predicate(const KernelContext& ctx, std::string_view op, KernelInputs inputs,
                              std::initializer_list<DType> dtypes, Op fn) {
  CheckInputCount(op, inputs, 2, 2);
  Tensor a = RequiredInput(op, inputs, 0, "A");
  Tensor b = RequiredInput(op, inputs, 1, "B");
  CheckDType(op, "A", a, dtypes);
  CheckDType(op, "B", b, dtypes);
  CheckSameDType(op, "A", a, "B", b);
  if (ComputesInFloat32(a.dtype())) {  // exact: every float16 and bfloat16 is a float32
    a = ConvertTensor(a, DType::kFloat32);
    b = ConvertTensor(b, DType::kFloat32);
  }
  const Shape* shapes[] = {&a.shape(), &b.shape()};
  const std::string_view names[] = {"A", "B"};
  const BroadcastPlan plan = MakeBroadcastPlan(op, shapes, names);
  Tensor out(DType::kBool, plan.out_shape);
  if (out.num_elements() == 0) return {out};
  VisitDType(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_invocable_r_v<bool, Op, T, T> && !std::is_same_v<T, Float16> &&
                  !std::is_same_v<T, BFloat16>) {
      RunBinary(ctx, plan, a.data<T>(), b.data<T>(), out.data<bool>(), kCheapCostNs, fn);
    }
  });
  return {out};
}

// Where's selection, by element size: the bytes are copied, whatever the
// dtype.
template <typename Bits>
void Select(const KernelContext& ctx, const BroadcastPlan& plan, const bool* condition,
            const Bits* x, const Bits* y, Bits* out) {
  const int64_t sc = plan.inner_stride(0), sx = plan.inner_stride(1), sy = plan.inner_stride(2);
  ParallelElements(
      ctx, plan.out_shape.num_elements(), kCheapCostNs, [&](int64_t begin, int64_t end) {
        ForEachRun(plan, begin, end, [&](int64_t o, const InputOffsets& in, int64_t length) {
          const bool* c = condition + in[0];
          const Bits* xs = x + in[1];
          const Bits* ys = y + in[2];
          Bits* dst = out + o;
          if (sc == 1 && sx == 1 && sy == 1) {  // the common same-shape case, vectorizable
            for (int64_t i = 0; i < length; ++i) dst[i] = c[i] ? xs[i] : ys[i];
          } else {
            for (int64_t i = 0; i < length; ++i) dst[i] = c[i * sc] ? xs[i * sx] : ys[i * sy];
          }
        });
      });
}

}  // namespace

std::vector<Tensor> EqualKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return Predicate(ctx, "Equal", inputs, kEqualDTypes, EqualOp{});
}

std::vector<Tensor> LessKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return Predicate(ctx, "Less", inputs, kNumericDTypes, LessOp{});
}

std::vector<Tensor> GreaterKernel(const KernelContext& ctx, const Attributes&,
                                  KernelInputs inputs) {
  return Predicate(ctx, "Greater", inputs, kNumericDTypes, GreaterOp{});
}

std::vector<Tensor> LessOrEqualKernel(const KernelContext& ctx, const Attributes&,
                                      KernelInputs inputs) {
  return Predicate(ctx, "LessOrEqual", inputs, kNumericDTypes, LessOrEqualOp{});
}

std::vector<Tensor> GreaterOrEqualKernel(const KernelContext& ctx, const Attributes&,
                                         KernelInputs inputs) {
  return Predicate(ctx, "GreaterOrEqual", inputs, kNumericDTypes, GreaterOrEqualOp{});
}

std::vector<Tensor> AndKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return Predicate(ctx, "And", inputs, kBoolDType, AndOp{});
}

std::vector<Tensor> OrKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return Predicate(ctx, "Or", inputs, kBoolDType, OrOp{});
}

std::vector<Tensor> XorKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  return Predicate(ctx, "Xor", inputs, kBoolDType, XorOp{});
}

std::vector<Tensor> NotKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  CheckInputCount("Not", inputs, 1, 1);
  const Tensor& x = RequiredInput("Not", inputs, 0, "X");
  CheckDType("Not", "X", x, kBoolDType);
  Tensor out(DType::kBool, x.shape());
  const bool* in = x.data<bool>();
  bool* dst = out.data<bool>();
  ParallelElements(ctx, x.num_elements(), kCheapCostNs, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = !in[i];
  });
  return {out};
}

std::vector<Tensor> WhereKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  CheckInputCount("Where", inputs, 3, 3);
  const Tensor& condition = RequiredInput("Where", inputs, 0, "condition");
  const Tensor& x = RequiredInput("Where", inputs, 1, "X");
  const Tensor& y = RequiredInput("Where", inputs, 2, "Y");
  CheckDType("Where", "condition", condition, kBoolDType);
  CheckSameDType("Where", "X", x, "Y", y);
  const Shape* shapes[] = {&condition.shape(), &x.shape(), &y.shape()};
  const std::string_view names[] = {"condition", "X", "Y"};
  const BroadcastPlan plan = MakeBroadcastPlan("Where", shapes, names);
  Tensor out(x.dtype(), plan.out_shape);
  if (out.num_elements() == 0) return {out};
  const bool* c = condition.data<bool>();
  switch (dtype_size(x.dtype())) {
    case 1:
      Select(ctx, plan, c, static_cast<const uint8_t*>(x.raw_data()),
             static_cast<const uint8_t*>(y.raw_data()), static_cast<uint8_t*>(out.raw_data()));
      break;
    case 2:
      Select(ctx, plan, c, static_cast<const uint16_t*>(x.raw_data()),
             static_cast<const uint16_t*>(y.raw_data()), static_cast<uint16_t*>(out.raw_data()));
      break;
    case 4:
      Select(ctx, plan, c, static_cast<const uint32_t*>(x.raw_data()),
             static_cast<const uint32_t*>(y.raw_data()), static_cast<uint32_t*>(out.raw_data()));
      break;
    default:
      Select(ctx, plan, c, static_cast<const uint64_t*>(x.raw_data()),
             static_cast<const uint64_t*>(y.raw_data()), static_cast<uint64_t*>(out.raw_data()));
      break;
  }
  return {out};
}

}  // namespace loom::kernels
