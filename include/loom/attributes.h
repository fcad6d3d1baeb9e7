// Operator attributes: ONNX's attribute kinds (int, float, string, their
// lists, a tensor, and a subgraph for control flow) keyed by name. One type for the whole tree: the
// eager API (loom/ops.h) and graph nodes (loom/graph.h) pass it, kernels read it.
//
//   loom::Attributes attrs{{"axis", int64_t{1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
//
// It is a std::map (ordered by name, looked up by std::string_view too) with
// typed readers; kernels read optional attributes with a default:
//
//   int64_t group = attrs.get_int("group", 1);
//   std::vector<int64_t> strides = attrs.get_ints("strides", {1, 1});
//
// An attribute present with the wrong kind ("group" given as a float) throws
// loom::InvalidArgumentError naming the attribute, the kind wanted and the
// kind found. A required attribute that is missing (the get_* overloads
// without a default) throws too.
//
// Thread safety: as std::map; const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "loom/tensor.h"

namespace loom {

struct Graph;  // loom/graph.h

// A subgraph (If's branches, Loop's and Scan's bodies): immutable and shared,
// so copying a node or a graph copies no subgraph. A pass that changes a
// subgraph makes a new one.
using GraphAttribute = std::shared_ptr<const Graph>;

using AttributeValue =
    std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                 std::vector<std::string>, Tensor, GraphAttribute>;

// "int", "float", "string", "ints", "floats", "strings", "tensor", "graph".
std::string_view AttributeKindName(const AttributeValue& value);

class Attributes : public std::map<std::string, AttributeValue, std::less<>> {
 public:
  using map::map;

  // Adds or replaces. Returns *this so calls chain:
  //   Attributes().set("axis", int64_t{1}).set("epsilon", 1e-5f)
  Attributes& set(std::string name, AttributeValue value);

  bool has(std::string_view name) const { return find(name) != end(); }

  int64_t get_int(std::string_view name) const;
  int64_t get_int(std::string_view name, int64_t fallback) const;
  float get_float(std::string_view name) const;
  float get_float(std::string_view name, float fallback) const;
  std::string get_string(std::string_view name) const;
  std::string get_string(std::string_view name, std::string fallback) const;
  std::vector<int64_t> get_ints(std::string_view name) const;
  std::vector<int64_t> get_ints(std::string_view name, std::vector<int64_t> fallback) const;
  std::vector<float> get_floats(std::string_view name) const;
  std::vector<float> get_floats(std::string_view name, std::vector<float> fallback) const;
  std::vector<std::string> get_strings(std::string_view name) const;
  Tensor get_tensor(std::string_view name) const;
  // Never null: a null graph attribute throws like a missing one.
  GraphAttribute get_graph(std::string_view name) const;

 private:
  // Null when absent; throws when present with another kind.
  template <typename T>
  const T* find_as(std::string_view name, std::string_view kind) const;
};

}  // namespace loom
