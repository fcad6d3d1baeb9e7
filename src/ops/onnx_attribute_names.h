// The attribute names of ONNX's default-domain operators, from the pinned
// onnx package's schemas (generated into onnx_attribute_names_table.cc by
// scripts/gen_onnx_op_versions.py): every name an op has had at any
// version, so that an eager call with a misspelt attribute
// (run("Softmax", {x}, {{"axsi", 0}})) is refused instead of silently
// running with the default.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "loom/attributes.h"

namespace loom::ops {

struct OnnxAttributeNames {
  std::string_view op;
  std::string_view names;  // comma-separated, sorted; "" = none
};

// Every default-domain op, sorted by name.
std::span<const OnnxAttributeNames> AllOnnxAttributeNames();

// Throws InvalidArgumentError naming the first attribute of `attributes`
// that ONNX's `op` never had, with the names it has. Ops that are not
// ONNX's (Loom's own, such as Silu) are not checked.
void CheckOnnxAttributeNames(std::string_view op, const Attributes& attributes);

// True when ONNX's default domain has `op` and every name in `attributes`
// is one of its attribute names: a node ONNX tools can read as it is.
bool IsOnnxOpWithOnnxAttributes(std::string_view op, const Attributes& attributes);

}  // namespace loom::ops
