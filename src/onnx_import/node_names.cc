#include "onnx_import/node_names.h"

#include <unordered_set>

namespace loom::onnx_import {

std::vector<std::string> UniqueNodeNames(const onnx::GraphProto& graph) {
  const int count = graph.node_size();
  std::vector<std::string> names(static_cast<size_t>(count));
  std::unordered_set<std::string> taken;
  // Pass 1 keeps every given name at its first use, so a generated name
  // never takes a name that a later node carries itself.
  for (int i = 0; i < count; ++i) {
    const std::string& name = graph.node(i).name();
    if (!name.empty() && taken.insert(name).second) names[i] = name;
  }
  for (int i = 0; i < count; ++i) {
    if (!names[i].empty()) continue;
    const std::string& op = graph.node(i).op_type();
    const std::string base = (op.empty() ? std::string("node") : op) + "_" + std::to_string(i);
    std::string name = base;
    for (int k = 1; !taken.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    names[i] = name;
  }
  return names;
}

}  // namespace loom::onnx_import
