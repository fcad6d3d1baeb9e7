#include "loom/attributes.h"

#include <iterator>
#include <utility>

#include "loom/errors.h"

namespace loom {

std::string_view AttributeKindName(const AttributeValue& value) {
  static constexpr std::string_view kNames[] = {"int",    "float",   "string", "ints",
                                                "floats", "strings", "tensor", "graph"};
  static_assert(std::size(kNames) == std::variant_size_v<AttributeValue>);
  return kNames[value.index()];
}

Attributes& Attributes::set(std::string name, AttributeValue value) {
  insert_or_assign(std::move(name), std::move(value));
  return *this;
}

template <typename T>
const T* Attributes::find_as(std::string_view name, std::string_view kind) const {
  auto it = find(name);
  if (it == end()) return nullptr;
  if (const T* value = std::get_if<T>(&it->second)) return value;
  throw InvalidArgumentError("attribute '" + std::string(name) + "' must be of kind " +
                             std::string(kind) + ", got " +
                             std::string(AttributeKindName(it->second)));
}

namespace {
[[noreturn]] void ThrowMissing(std::string_view name) {
  throw InvalidArgumentError("required attribute '" + std::string(name) + "' is missing");
}

template <typename T>
T Required(const T* value, std::string_view name) {
  if (value == nullptr) ThrowMissing(name);
  return *value;
}
}  // namespace

int64_t Attributes::get_int(std::string_view name) const {
  return Required(find_as<int64_t>(name, "int"), name);
}
int64_t Attributes::get_int(std::string_view name, int64_t fallback) const {
  const int64_t* value = find_as<int64_t>(name, "int");
  return value ? *value : fallback;
}
float Attributes::get_float(std::string_view name) const {
  return Required(find_as<float>(name, "float"), name);
}
float Attributes::get_float(std::string_view name, float fallback) const {
  const float* value = find_as<float>(name, "float");
  return value ? *value : fallback;
}
std::string Attributes::get_string(std::string_view name) const {
  return Required(find_as<std::string>(name, "string"), name);
}
std::string Attributes::get_string(std::string_view name, std::string fallback) const {
  const std::string* value = find_as<std::string>(name, "string");
  return value ? *value : std::move(fallback);
}
std::vector<int64_t> Attributes::get_ints(std::string_view name) const {
  return Required(find_as<std::vector<int64_t>>(name, "ints"), name);
}
std::vector<int64_t> Attributes::get_ints(std::string_view name,
                                          std::vector<int64_t> fallback) const {
  const auto* value = find_as<std::vector<int64_t>>(name, "ints");
  return value ? *value : std::move(fallback);
}
std::vector<float> Attributes::get_floats(std::string_view name) const {
  return Required(find_as<std::vector<float>>(name, "floats"), name);
}
std::vector<float> Attributes::get_floats(std::string_view name,
                                          std::vector<float> fallback) const {
  const auto* value = find_as<std::vector<float>>(name, "floats");
  return value ? *value : std::move(fallback);
}
std::vector<std::string> Attributes::get_strings(std::string_view name) const {
  return Required(find_as<std::vector<std::string>>(name, "strings"), name);
}
Tensor Attributes::get_tensor(std::string_view name) const {
  return Required(find_as<Tensor>(name, "tensor"), name);
}
GraphAttribute Attributes::get_graph(std::string_view name) const {
  GraphAttribute graph = Required(find_as<GraphAttribute>(name, "graph"), name);
  if (graph == nullptr) ThrowMissing(name);
  return graph;
}

}  // namespace loom
