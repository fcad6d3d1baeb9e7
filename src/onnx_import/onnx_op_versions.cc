#include "onnx_import/onnx_op_versions.h"

#include <algorithm>

namespace loom::onnx_import {

const OnnxOpVersions* FindOnnxOp(std::string_view op) {
  const std::span<const OnnxOpVersions> ops = OnnxOps();
  auto it =
      std::lower_bound(ops.begin(), ops.end(), op,
                       [](const OnnxOpVersions& e, std::string_view name) { return e.op < name; });
  return it != ops.end() && it->op == op ? &*it : nullptr;
}

std::optional<int> OpVersionAtOpset(std::string_view op, int opset) {
  const OnnxOpVersions* history = FindOnnxOp(op);
  if (history == nullptr) return std::nullopt;
  std::optional<int> version;
  for (int i = 0; i < history->count && history->since[i] <= opset; ++i)
    version = history->since[i];
  return version;
}

}  // namespace loom::onnx_import
