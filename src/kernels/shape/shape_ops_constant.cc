// Shape, Size, Constant, ConstantOfShape, Range: operators that produce
// shapes or constants rather than move input elements.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

// Range values cost ~0.5 ns each (a multiply-add and a store).
constexpr double kRangeNsPerElement = 0.5;

// Integer Range: count = ceil((limit - start) / delta) computed in unsigned
// arithmetic, which holds every difference of two int64 values.
uint64_t IntegerRangeCount(int64_t start, int64_t limit, int64_t delta) {
  if (delta > 0 ? limit <= start : limit >= start) return 0;
  const uint64_t span = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                  : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
  const uint64_t step =
      delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
  return 1 + (span - 1) / step;
}

template <typename T>
Tensor MakeRange(const KernelContext& ctx, const Tensor& start_t, const Tensor& limit_t,
                 const Tensor& delta_t) {
  constexpr std::string_view kOp = "Range";
  const T start = start_t.data<T>()[0];
  const T limit = limit_t.data<T>()[0];
  const T delta = delta_t.data<T>()[0];
  if (delta == T{0}) ThrowKernelError(kOp, "input 'delta' must not be 0");
  const int64_t max_count = kMaxTensorBytes / static_cast<int64_t>(sizeof(T));
  int64_t count = 0;
  if constexpr (std::is_floating_point_v<T>) {
    const double exact = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                   static_cast<double>(delta));
    if (!(exact <= static_cast<double>(max_count))) {  // also catches NaN
      ThrowKernelError(kOp, "start " + std::to_string(start) + ", limit " + std::to_string(limit) +
                                ", delta " + std::to_string(delta) +
                                " give too many elements (more than " + std::to_string(max_count) +
                                ")");
    }
    count = exact > 0 ? static_cast<int64_t>(exact) : 0;
  } else {
    const uint64_t n = IntegerRangeCount(start, limit, delta);
    if (n > static_cast<uint64_t>(max_count)) {
      ThrowKernelError(kOp, "start " + std::to_string(start) + ", limit " + std::to_string(limit) +
                                ", delta " + std::to_string(delta) + " give " + std::to_string(n) +
                                " elements (more than " + std::to_string(max_count) + ")");
    }
    count = static_cast<int64_t>(n);
  }
  Tensor output(dtype_of<T>(), Shape({count}));
  T* out = output.data<T>();
  // Serial loop replaced: for (i = 0; i < count; ++i) out[i] = start + i * delta.
  threading::ParallelFor(ctx.pool, count, kRangeNsPerElement, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = start + static_cast<T>(i) * delta;
      } else {
        // Every value lies between start and limit, so it fits T; the
        // unsigned products wrap back to it without signed overflow.
        out[i] = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(start)) +
                                static_cast<uint64_t>(i) *
                                    static_cast<uint64_t>(static_cast<int64_t>(delta)));
      }
    }
  });
  return output;
}

}  // namespace

std::vector<Tensor> ShapeKernel(const KernelContext&, const Attributes& attrs,
                                KernelInputs inputs) {
  CheckInputCount("Shape", inputs, 1, 1);
  const Tensor& data = RequiredInput("Shape", inputs, 0, "data");
  const int64_t rank = data.shape().rank();
  auto resolve = [rank](int64_t axis) {
    if (axis < 0) axis += rank;
    return std::clamp<int64_t>(axis, 0, rank);
  };
  const int64_t start = resolve(attrs.get_int("start", 0));
  const int64_t end = resolve(attrs.get_int("end", rank));
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(data.shape().dims()[d]);
  const auto count = static_cast<int64_t>(dims.size());
  return {Tensor::from_vector(Shape({count}), dims)};
}

std::vector<Tensor> SizeKernel(const KernelContext&, const Attributes&, KernelInputs inputs) {
  CheckInputCount("Size", inputs, 1, 1);
  const Tensor& data = RequiredInput("Size", inputs, 0, "data");
  return {Tensor::from_vector(Shape(), std::vector<int64_t>{data.num_elements()})};
}

std::vector<Tensor> ConstantKernel(const KernelContext&, const Attributes& attrs,
                                   KernelInputs inputs) {
  constexpr std::string_view kOp = "Constant";
  CheckInputCount(kOp, inputs, 0, 0);
  int given = 0;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints",
                           "value_string", "value_strings", "sparse_value"}) {
    given += attrs.has(name) ? 1 : 0;
  }
  if (given != 1) {
    ThrowKernelError(kOp,
                     "expected exactly one of the attributes value, value_float, "
                     "value_floats, value_int, value_ints, value_string, value_strings (got " +
                         std::to_string(given) + ")");
  }
  // A copy, so that a consumer writing its input cannot change the constant.
  if (attrs.has("value")) return {attrs.get_tensor("value").clone()};
  if (attrs.has("value_float")) {
    return {Tensor::from_vector(Shape(), std::vector<float>{attrs.get_float("value_float")})};
  }
  if (attrs.has("value_floats")) {
    const std::vector<float> values = attrs.get_floats("value_floats");
    return {Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values)};
  }
  if (attrs.has("value_int")) {
    return {Tensor::from_vector(Shape(), std::vector<int64_t>{attrs.get_int("value_int")})};
  }
  if (attrs.has("value_ints")) {
    const std::vector<int64_t> values = attrs.get_ints("value_ints");
    return {Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values)};
  }
  if (attrs.has("value_string")) {
    return {
        Tensor::from_vector(Shape(), std::vector<std::string>{attrs.get_string("value_string")})};
  }
  if (attrs.has("value_strings")) {
    const std::vector<std::string> values = attrs.get_strings("value_strings");
    return {Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values)};
  }
  ThrowKernelError(kOp, "sparse constants are not supported");
}

std::vector<Tensor> ConstantOfShapeKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  constexpr std::string_view kOp = "ConstantOfShape";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& shape_input = RequiredInput(kOp, inputs, 0, "input");
  CheckDType(kOp, "input", shape_input, {DType::kInt64});
  const std::vector<int64_t> dims = shape_ops::ReadIndexList(kOp, "input", shape_input);
  for (int64_t dim : dims) {
    if (dim < 0)
      ThrowKernelError(kOp, "input 'input' has negative dimension " + std::to_string(dim));
  }
  Tensor value = Tensor::from_vector(Shape({1}), std::vector<float>{0.0f});
  if (attrs.has("value")) {
    value = attrs.get_tensor("value");
    if (value.num_elements() != 1) {
      ThrowKernelError(kOp, "attribute 'value' must hold exactly 1 element (got shape " +
                                value.shape().to_string() + ")");
    }
  }
  Tensor output(value.dtype(), Shape(dims));
  if (output.num_elements() == 0) return {output};
  // Every output element reads the one value: stride 0.
  shape_ops::StridedCopyPlan plan;
  plan.element_size = dtype_size(value.dtype());
  plan.dims = {output.num_elements()};
  plan.in_strides = {0};
  shape_ops::StridedCopy(ctx, plan, value.raw_data(), output.raw_data());
  return {output};
}

std::vector<Tensor> RangeKernel(const KernelContext& ctx, const Attributes&, KernelInputs inputs) {
  constexpr std::string_view kOp = "Range";
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& start = RequiredInput(kOp, inputs, 0, "start");
  const Tensor& limit = RequiredInput(kOp, inputs, 1, "limit");
  const Tensor& delta = RequiredInput(kOp, inputs, 2, "delta");
  CheckDType(kOp, "start", start,
             {DType::kFloat32, DType::kFloat64, DType::kInt16, DType::kInt32, DType::kInt64});
  CheckDType(kOp, "limit", limit, {start.dtype()});
  CheckDType(kOp, "delta", delta, {start.dtype()});
  for (const auto& [tensor, name] :
       {std::pair{&start, "start"}, {&limit, "limit"}, {&delta, "delta"}}) {
    if (tensor->num_elements() != 1 || tensor->shape().rank() > 1) {
      ThrowKernelError(kOp, std::string("input '") + name + "' must be a scalar (got shape " +
                                tensor->shape().to_string() + ")");
    }
  }
  switch (start.dtype()) {
    case DType::kFloat32:
      return {MakeRange<float>(ctx, start, limit, delta)};
    case DType::kFloat64:
      return {MakeRange<double>(ctx, start, limit, delta)};
    case DType::kInt16:
      return {MakeRange<int16_t>(ctx, start, limit, delta)};
    case DType::kInt32:
      return {MakeRange<int32_t>(ctx, start, limit, delta)};
    default:
      return {MakeRange<int64_t>(ctx, start, limit, delta)};
  }
}

}  // namespace loom::kernels
