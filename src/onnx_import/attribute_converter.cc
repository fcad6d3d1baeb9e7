#include "onnx_import/attribute_converter.h"

#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

std::string TypeName(onnx::AttributeProto::AttributeType type) {
  if (onnx::AttributeProto::AttributeType_IsValid(type)) {
    return onnx::AttributeProto::AttributeType_Name(type);
  }
  return "type " + std::to_string(static_cast<int>(type));
}

}  // namespace

AttributeValue ConvertAttribute(const onnx::AttributeProto& attribute,
                                const ExternalDataPolicy& policy, const std::string& where) {
  const std::string what = where + ": attribute '" + attribute.name() + "'";
  if (!attribute.ref_attr_name().empty()) {
    throw InvalidArgumentError(what + " refers to function attribute '" +
                               attribute.ref_attr_name() +
                               "' outside a function body (model-local functions are inlined "
                               "before conversion)");
  }
  switch (attribute.type()) {
    case onnx::AttributeProto::INT:
      return attribute.i();
    case onnx::AttributeProto::FLOAT:
      return attribute.f();
    case onnx::AttributeProto::STRING:
      return attribute.s();
    case onnx::AttributeProto::INTS:
      return std::vector<int64_t>(attribute.ints().begin(), attribute.ints().end());
    case onnx::AttributeProto::FLOATS:
      return std::vector<float>(attribute.floats().begin(), attribute.floats().end());
    case onnx::AttributeProto::STRINGS:
      return std::vector<std::string>(attribute.strings().begin(), attribute.strings().end());
    case onnx::AttributeProto::TENSOR:
      if (!attribute.has_t()) throw InvalidArgumentError(what + " of type TENSOR holds no tensor");
      return TensorFromProto(attribute.t(), policy, what);
    case onnx::AttributeProto::GRAPH:
    case onnx::AttributeProto::GRAPHS:
      throw InvalidArgumentError(what + " is a subgraph (" + TypeName(attribute.type()) +
                                 "); control flow is not supported");
    default:
      throw InvalidArgumentError(what + " has type " + TypeName(attribute.type()) +
                                 ", which is not supported (INT, FLOAT, STRING, their lists, "
                                 "TENSOR)");
  }
}

Attributes ConvertAttributes(const onnx::NodeProto& node, const ExternalDataPolicy& policy,
                             const std::string& where) {
  Attributes attributes;
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name().empty()) throw InvalidArgumentError(where + ": an attribute has no name");
    if (attributes.count(attribute.name())) {
      throw InvalidArgumentError(where + ": attribute '" + attribute.name() + "' is given twice");
    }
    attributes.emplace(attribute.name(), ConvertAttribute(attribute, policy, where));
  }
  return attributes;
}

}  // namespace loom::onnx_import
