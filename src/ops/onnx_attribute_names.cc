#include "ops/onnx_attribute_names.h"

#include <algorithm>

#include "loom/errors.h"

namespace loom::ops {

void CheckOnnxAttributeNames(std::string_view op, const Attributes& attributes) {
  if (attributes.empty()) return;
  const std::span<const OnnxAttributeNames> all = AllOnnxAttributeNames();
  const auto found = std::lower_bound(
      all.begin(), all.end(), op,
      [](const OnnxAttributeNames& entry, std::string_view name) { return entry.op < name; });
  if (found == all.end() || found->op != op) return;
  const std::string_view names = found->names;
  for (const auto& [name, value] : attributes) {
    bool known = false;
    for (size_t start = 0; start <= names.size() && !names.empty();) {
      const size_t end = std::min(names.find(',', start), names.size());
      if (names.substr(start, end - start) == name) {
        known = true;
        break;
      }
      start = end + 1;
    }
    if (!known) {
      std::string listed;
      for (char c : names) listed += c == ',' ? std::string(", ") : std::string(1, c);
      throw InvalidArgumentError(
          std::string(op) + ": unknown attribute '" + name + "' (" +
          (names.empty() ? std::string("it takes no attributes") : "its attributes: " + listed) +
          ")");
    }
  }
}

}  // namespace loom::ops
