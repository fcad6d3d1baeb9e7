// Type rules of the ops that make shapes and constants (kernels/shape/shape_ops.h):
// Constant, ConstantOfShape, Range, Shape, Size.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/type_rules.h"

namespace loom::graph {
namespace {

// The attributes of which a Constant node carries exactly one.
constexpr std::string_view kConstantAttributes[] = {"value",         "value_float", "value_floats",
                                                    "value_int",     "value_ints",  "value_string",
                                                    "value_strings", "sparse_value"};

template <typename T>
std::vector<T> RangeInputs(const NodeTypeContext& ctx) {
  std::vector<T> values;
  for (size_t i = 0; i < 3; ++i) values.push_back(ctx.constant(i)->data<T>()[0]);
  return values;
}

// The element count of Range(start, limit, delta), as the kernel computes
// it: ceil((limit - start) / delta), at least 0.
template <typename T>
int64_t RangeCount(const NodeTypeContext& ctx) {
  const std::vector<T> v = RangeInputs<T>(ctx);
  const T start = v[0], limit = v[1], delta = v[2];
  if (delta == T{0}) ctx.Fail("input " + ctx.Describe(2) + " must not be 0");
  if constexpr (std::is_floating_point_v<T>) {
    const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                   static_cast<double>(delta));
    if (!(count < 0x1p62)) {  // also catches NaN
      ctx.Fail("Range(" + std::to_string(start) + ", " + std::to_string(limit) + ", " +
               std::to_string(delta) + ") has too many elements");
    }
    return count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    // In unsigned arithmetic, which holds every difference of two int64s.
    if (delta > 0 ? limit <= start : limit >= start) return 0;
    const uint64_t span = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                    : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    const uint64_t step =
        delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
    return static_cast<int64_t>(1 + (span - 1) / step);
  }
}

}  // namespace

std::optional<Tensor> ConstantNodeValue(const Node& node) {
  if (node.op_type != "Constant" || node.attributes.size() != 1) return std::nullopt;
  const auto& [name, value] = *node.attributes.begin();
  if (name == "value" && std::holds_alternative<Tensor>(value)) return std::get<Tensor>(value);
  if (name == "value_int" && std::holds_alternative<int64_t>(value)) {
    return Tensor::from_vector(Shape(), std::vector<int64_t>{std::get<int64_t>(value)});
  }
  if (name == "value_ints" && std::holds_alternative<std::vector<int64_t>>(value)) {
    const auto& ints = std::get<std::vector<int64_t>>(value);
    return Tensor::from_vector(Shape({static_cast<int64_t>(ints.size())}), ints);
  }
  return std::nullopt;
}

std::vector<TensorType> InferConstant(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(0, 0);
  int given = 0;
  for (std::string_view name : kConstantAttributes) given += ctx.has_attribute(name) ? 1 : 0;
  if (given != 1) {
    ctx.Fail(
        "expected exactly one of the attributes value, value_float, value_floats, "
        "value_int, value_ints, value_string, value_strings (got " +
        std::to_string(given) + ")");
  }
  if (std::optional<Tensor> value = ctx.GetTensor("value")) {
    return {TensorType{value->dtype(), ToSymbolicShape(value->shape())}};
  }
  if (ctx.has_attribute("value_float")) {
    ctx.GetFloat("value_float", 0.0f);  // checks the kind
    return {TensorType{DType::kFloat32, SymbolicShape{}}};
  }
  if (std::optional<std::vector<float>> floats = ctx.GetFloats("value_floats")) {
    return {TensorType{DType::kFloat32, SymbolicShape{static_cast<int64_t>(floats->size())}}};
  }
  if (ctx.has_attribute("value_int")) {
    ctx.GetInt("value_int", 0);
    return {TensorType{DType::kInt64, SymbolicShape{}}};
  }
  if (std::optional<std::vector<int64_t>> ints = ctx.GetInts("value_ints")) {
    return {TensorType{DType::kInt64, SymbolicShape{static_cast<int64_t>(ints->size())}}};
  }
  if (ctx.has_attribute("value_string")) {
    ctx.GetString("value_string", "");  // checks the kind
    return {TensorType{DType::kString, SymbolicShape{}}};
  }
  if (ctx.has_attribute("value_strings")) {
    const std::vector<std::string> strings = ctx.node().attributes.get_strings("value_strings");
    return {TensorType{DType::kString, SymbolicShape{static_cast<int64_t>(strings.size())}}};
  }
  ctx.Fail("sparse constants are not supported");
}

// ConstantOfShape(input: int64 shape): dtype of attribute value (default float32).
std::vector<TensorType> InferConstantOfShape(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const std::optional<int64_t> rank = ctx.ListLength(0);
  DType dtype = DType::kFloat32;
  if (std::optional<Tensor> value = ctx.GetTensor("value")) {
    if (value->num_elements() != 1) {
      ctx.Fail("attribute 'value' must hold exactly 1 element (got shape " +
               value->shape().to_string() + ")");
    }
    dtype = value->dtype();
  }
  if (const std::optional<std::vector<int64_t>> dims = ctx.ConstantInts(0)) {
    SymbolicShape shape;
    for (int64_t d : *dims) {
      if (d < 0)
        ctx.Fail("input " + ctx.Describe(0) + " = " + IntsToString(*dims) +
                 " has a negative dimension");
      shape.push_back(Dim(d));
    }
    return {TensorType{dtype, shape}};
  }
  if (rank) return {TensorType{dtype, UnknownDims(ctx, *rank)}};
  return {TensorType{dtype, std::nullopt}};
}

// Range(start, limit, delta): scalars of one dtype -> [count].
std::vector<TensorType> InferRange(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(3, 3);
  const DType dtype = ctx.input(0).dtype;
  for (size_t i = 0; i < 3; ++i) {
    ctx.CheckSameDType(i, 0);
    const std::optional<SymbolicShape>& s = ctx.input_shape(i);
    const bool scalar =
        !s || s->empty() || (s->size() == 1 && !((*s)[0].is_known() && (*s)[0].size() != 1));
    if (!scalar) ctx.Fail("input " + ctx.Describe(i) + " must be a scalar");
  }
  if (ctx.constant(0) == nullptr || ctx.constant(1) == nullptr || ctx.constant(2) == nullptr) {
    return {TensorType{dtype, SymbolicShape{ctx.UnknownDim()}}};
  }
  int64_t count = 0;
  switch (dtype) {
    case DType::kFloat32:
      count = RangeCount<float>(ctx);
      break;
    case DType::kFloat64:
      count = RangeCount<double>(ctx);
      break;
    case DType::kInt16:
      count = RangeCount<int16_t>(ctx);
      break;
    case DType::kInt32:
      count = RangeCount<int32_t>(ctx);
      break;
    case DType::kInt64:
      count = RangeCount<int64_t>(ctx);
      break;
    default:
      return {TensorType{dtype, SymbolicShape{ctx.UnknownDim()}}};  // refused by the dtype check
  }
  return {TensorType{dtype, SymbolicShape{count}}};
}

// Shape(data) -> int64 [end - start], start and end clamped to [0, rank].
std::vector<TensorType> InferShape(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  const std::optional<SymbolicShape>& x = ctx.input_shape(0);
  if (!x) return {TensorType{DType::kInt64, SymbolicShape{ctx.UnknownDim()}}};
  const int64_t rank = static_cast<int64_t>(x->size());
  auto resolve = [rank](int64_t axis) {
    return std::clamp<int64_t>(axis < 0 ? axis + rank : axis, 0, rank);
  };
  const int64_t start = resolve(ctx.GetInt("start", 0));
  const int64_t end = resolve(ctx.GetInt("end", rank));
  return {TensorType{DType::kInt64, SymbolicShape{std::max<int64_t>(end - start, 0)}}};
}

// Size(data) -> int64 scalar.
std::vector<TensorType> InferSize(const NodeTypeContext& ctx) {
  ctx.CheckInputCount(1, 1);
  return {TensorType{DType::kInt64, SymbolicShape{}}};
}

}  // namespace loom::graph
