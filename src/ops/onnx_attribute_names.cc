#include "ops/onnx_attribute_names.h"

#include <algorithm>

#include "loom/errors.h"

namespace loom::ops {

namespace {

// The op's entry, or null when ONNX has no such op.
const OnnxAttributeNames* Find(std::string_view op) {
  const std::span<const OnnxAttributeNames> all = AllOnnxAttributeNames();
  const auto found = std::lower_bound(
      all.begin(), all.end(), op,
      [](const OnnxAttributeNames& entry, std::string_view name) { return entry.op < name; });
  return found == all.end() || found->op != op ? nullptr : &*found;
}

bool Listed(std::string_view names, std::string_view name) {
  for (size_t start = 0; start <= names.size() && !names.empty();) {
    const size_t end = std::min(names.find(',', start), names.size());
    if (names.substr(start, end - start) == name) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

bool IsOnnxOpWithOnnxAttributes(std::string_view op, const Attributes& attributes) {
  const OnnxAttributeNames* entry = Find(op);
  if (entry == nullptr) return false;
  for (const auto& [name, value] : attributes) {
    if (!Listed(entry->names, name)) return false;
  }
  return true;
}

void CheckOnnxAttributeNames(std::string_view op, const Attributes& attributes) {
  if (attributes.empty()) return;
  const OnnxAttributeNames* entry = Find(op);
  if (entry == nullptr) return;
  const std::string_view names = entry->names;
  for (const auto& [name, value] : attributes) {
    if (!Listed(names, name)) {
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
