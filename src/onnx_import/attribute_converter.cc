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
                                const ExternalDataPolicy& policy, const std::string& where,
                                const SubgraphConverter* convert_subgraph) {
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
      if (convert_subgraph == nullptr) {
        throw InvalidArgumentError(what + " is a subgraph, which is not supported here");
      }
      if (!attribute.has_g()) throw InvalidArgumentError(what + " of type GRAPH holds no graph");
      return (*convert_subgraph)(attribute.g(), what);
    case onnx::AttributeProto::GRAPHS:
      throw InvalidArgumentError(what + " is a list of subgraphs (GRAPHS), which is not supported");
    default:
      throw InvalidArgumentError(what + " has type " + TypeName(attribute.type()) +
                                 ", which is not supported (INT, FLOAT, STRING, their lists, "
                                 "TENSOR)");
  }
}

Attributes ConvertAttributes(const onnx::NodeProto& node, const ExternalDataPolicy& policy,
                             const std::string& where, const SubgraphConverter* convert_subgraph) {
  Attributes attributes;
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.name().empty()) throw InvalidArgumentError(where + ": an attribute has no name");
    if (attributes.count(attribute.name())) {
      throw InvalidArgumentError(where + ": attribute '" + attribute.name() + "' is given twice");
    }
    attributes.emplace(attribute.name(),
                       ConvertAttribute(attribute, policy, where, convert_subgraph));
  }
  return attributes;
}

}  // namespace loom::onnx_import
