// Operator attributes as the public API passes them: ONNX's attribute kinds
// (int, float, string, their lists, and a tensor) keyed by name.
//
//   loom::Attributes attrs{{"axis", int64_t{1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}};
//
// Used by the eager API (loom/ops.h) and graph nodes (loom/graph.h); the
// kernel that reads an attribute checks its kind and value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "loom/tensor.h"

namespace loom {

using AttributeValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                                    std::vector<float>, std::vector<std::string>, Tensor>;
using Attributes = std::map<std::string, AttributeValue>;

}  // namespace loom
