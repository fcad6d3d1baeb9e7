#include "graph/passes/kernel_attributes.h"

#include <variant>

namespace loom::graph {

kernels::Attributes ToKernelAttributes(const Attributes& attributes) {
  kernels::Attributes out;
  for (const auto& [name, value] : attributes) {
    std::visit([&out, &name](const auto& v) { out.set(name, v); }, value);
  }
  return out;
}

Attributes FromKernelAttributes(const kernels::Attributes& attributes) {
  Attributes out;
  for (const auto& [name, value] : attributes.all()) {
    std::visit([&out, &name](const auto& v) { out[name] = v; }, value);
  }
  return out;
}

}  // namespace loom::graph
