// NodeTypeContext (type_rules.h): what a type rule sees of one node, and
// how it reports errors.
#include <algorithm>
#include <array>
#include <variant>

#include "graph/type_rules.h"
#include "loom/errors.h"

namespace loom::graph {

bool IsUnknownDim(const Dim& dim) { return !dim.is_known() && dim.symbol().front() == '?'; }

NodeTypeContext::NodeTypeContext(const Graph& graph, const Node& node,
                                 std::vector<std::optional<TensorType>> inputs,
                                 const std::map<std::string, Tensor>& constants)
    : graph_(graph), node_(node), inputs_(std::move(inputs)), constants_(constants) {}

int64_t NodeTypeContext::Mul(int64_t a, int64_t b, std::string_view what) const {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) {
    Fail(std::string(what) + " overflows int64 (" + std::to_string(a) + " * " + std::to_string(b) +
         ")");
  }
  return result;
}

int64_t NodeTypeContext::Add(int64_t a, int64_t b, std::string_view what) const {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) {
    Fail(std::string(what) + " overflows int64 (" + std::to_string(a) + " + " + std::to_string(b) +
         ")");
  }
  return result;
}

void NodeTypeContext::Fail(const std::string& detail) const {
  throw InvalidArgumentError("graph '" + graph_.name + "': node '" + node_.name + "' (" +
                             node_.op_type + "): " + detail);
}

bool NodeTypeContext::has_input(size_t index) const {
  return index < inputs_.size() && inputs_[index].has_value();
}

const TensorType& NodeTypeContext::input(size_t index) const {
  if (!has_input(index)) Fail("input " + std::to_string(index) + " is required but absent");
  return *inputs_[index];
}

const std::optional<SymbolicShape>& NodeTypeContext::input_shape(size_t index) const {
  return input(index).shape;
}

std::string NodeTypeContext::Describe(size_t index) const {
  return "'" + node_.inputs[index] + "' " + input(index).to_string();
}

void NodeTypeContext::CheckInputCount(size_t min_count, size_t max_count) const {
  if (inputs_.size() < min_count || inputs_.size() > max_count) {
    std::string expected = std::to_string(min_count);
    if (max_count == kAnyNumber) {
      expected = "at least " + expected;
    } else if (max_count != min_count) {
      expected += " to " + std::to_string(max_count);
    }
    const bool one = max_count == 1 || (max_count == kAnyNumber && min_count == 1);
    Fail("expected " + expected + " input" + (one ? "" : "s") + " (got " +
         std::to_string(inputs_.size()) + ")");
  }
  for (size_t i = 0; i < min_count; ++i) input(i);
}

void NodeTypeContext::CheckSameDType(size_t index, size_t like) const {
  if (!has_input(index) || !has_input(like)) return;
  if (input(index).dtype == input(like).dtype) return;
  Fail("inputs " + Describe(like) + " and " + Describe(index) + " must have the same dtype");
}

void NodeTypeContext::CheckDTypeIn(size_t index, std::initializer_list<DType> allowed) const {
  if (!has_input(index)) return;
  if (std::find(allowed.begin(), allowed.end(), input(index).dtype) != allowed.end()) return;
  std::string names;
  for (DType dtype : allowed) names += (names.empty() ? "" : ", ") + std::string(dtype_name(dtype));
  Fail("input " + Describe(index) + " must have dtype " + names);
}

void NodeTypeContext::CheckRank(size_t index, int rank) const {
  const std::optional<SymbolicShape>& shape = input_shape(index);
  if (shape && static_cast<int>(shape->size()) != rank) {
    Fail("input " + Describe(index) + " must have rank " + std::to_string(rank));
  }
}

const Tensor* NodeTypeContext::constant(size_t index) const {
  if (!has_input(index)) return nullptr;
  auto it = constants_.find(node_.inputs[index]);
  return it == constants_.end() ? nullptr : &it->second;
}

std::optional<int64_t> NodeTypeContext::ListLength(size_t index) const {
  const std::optional<SymbolicShape>& shape = input_shape(index);
  if (!shape) return std::nullopt;
  if (shape->size() > 1) Fail("input " + Describe(index) + " must have rank 1");
  if (shape->empty()) return 1;
  if (!(*shape)[0].is_known()) return std::nullopt;
  return (*shape)[0].size();
}

std::optional<std::vector<int64_t>> NodeTypeContext::ConstantInts(size_t index) const {
  const Tensor* tensor = constant(index);
  if (tensor == nullptr) return std::nullopt;
  if (tensor->shape().rank() > 1) {
    Fail("input " + Describe(index) + " must be a scalar or 1-D list of integers");
  }
  std::vector<int64_t> values;
  if (tensor->dtype() == DType::kInt64) {
    const int64_t* p = tensor->data<int64_t>();
    values.assign(p, p + tensor->num_elements());
  } else if (tensor->dtype() == DType::kInt32) {
    const int32_t* p = tensor->data<int32_t>();
    values.assign(p, p + tensor->num_elements());
  } else {
    Fail("input " + Describe(index) + " must have dtype int32 or int64");
  }
  return values;
}

// The variant index of each attribute kind, in loom::AttributeValue order.
enum AttributeKind : size_t { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor };

const AttributeValue* NodeTypeContext::FindAttribute(std::string_view name, size_t kind,
                                                     std::string_view kind_name) const {
  auto it = node_.attributes.find(std::string(name));
  if (it == node_.attributes.end()) return nullptr;
  if (it->second.index() != kind) {
    static constexpr std::array<std::string_view, 7> kKindNames = {
        "int", "float", "string", "ints", "floats", "strings", "tensor"};
    Fail("attribute '" + std::string(name) + "' must be of kind " + std::string(kind_name) +
         " (got " + std::string(kKindNames[it->second.index()]) + ")");
  }
  return &it->second;
}

bool NodeTypeContext::has_attribute(std::string_view name) const {
  return node_.attributes.count(std::string(name)) != 0;
}

int64_t NodeTypeContext::GetInt(std::string_view name, int64_t fallback) const {
  const AttributeValue* value = FindAttribute(name, kInt, "int");
  return value ? std::get<int64_t>(*value) : fallback;
}

int64_t NodeTypeContext::RequireInt(std::string_view name) const {
  if (!has_attribute(name)) Fail("required attribute '" + std::string(name) + "' is missing");
  return GetInt(name, 0);
}

float NodeTypeContext::GetFloat(std::string_view name, float fallback) const {
  const AttributeValue* value = FindAttribute(name, kFloat, "float");
  return value ? std::get<float>(*value) : fallback;
}

std::string NodeTypeContext::GetString(std::string_view name, std::string fallback) const {
  const AttributeValue* value = FindAttribute(name, kString, "string");
  return value ? std::get<std::string>(*value) : std::move(fallback);
}

std::optional<std::vector<int64_t>> NodeTypeContext::GetInts(std::string_view name) const {
  const AttributeValue* value = FindAttribute(name, kInts, "ints");
  if (value == nullptr) return std::nullopt;
  return std::get<std::vector<int64_t>>(*value);
}

std::vector<int64_t> NodeTypeContext::GetInts(std::string_view name,
                                              std::vector<int64_t> fallback) const {
  std::optional<std::vector<int64_t>> value = GetInts(name);
  return value ? std::move(*value) : std::move(fallback);
}

std::optional<std::vector<float>> NodeTypeContext::GetFloats(std::string_view name) const {
  const AttributeValue* value = FindAttribute(name, kFloats, "floats");
  if (value == nullptr) return std::nullopt;
  return std::get<std::vector<float>>(*value);
}

std::optional<Tensor> NodeTypeContext::GetTensor(std::string_view name) const {
  const AttributeValue* value = FindAttribute(name, kTensor, "tensor");
  if (value == nullptr) return std::nullopt;
  return std::get<Tensor>(*value);
}

int NodeTypeContext::NormalizeAxis(int64_t axis, int rank, std::string_view what) const {
  if (axis < -rank || axis >= rank) {
    Fail(std::string(what) + " " + std::to_string(axis) + " is outside [" + std::to_string(-rank) +
         ", " + std::to_string(rank - 1) + "] for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Dim NodeTypeContext::UnknownDim() const {
  // Node names are unique and the suffix is digits only, so no two nodes
  // (nor two calls) give the same symbol.
  return Dim::Invented("?" + node_.name + "." + std::to_string(next_unknown_++));
}

}  // namespace loom::graph
