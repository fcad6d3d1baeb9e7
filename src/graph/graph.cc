#include "loom/graph.h"

#include <sstream>

#include "graph/topological_order.h"

namespace loom {

std::string Dim::to_string() const { return is_known() ? std::to_string(size_) : symbol_; }

std::string shape_to_string(const SymbolicShape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i].to_string();
  }
  return out + "]";
}

std::string TensorType::to_string() const {
  const std::string tensor =
      std::string(dtype_name(dtype)) + (shape ? shape_to_string(*shape) : "[?]");
  switch (kind) {
    case ValueKind::kTensor:
      return tensor;
    case ValueKind::kSequence:
      return "seq(" + tensor + ")";
    case ValueKind::kOptionalTensor:
      return "optional(" + tensor + ")";
    case ValueKind::kOptionalSequence:
      return "optional(seq(" + tensor + "))";
  }
  return tensor;
}

TensorType TensorType::element_of_optional() const {
  TensorType held = *this;
  if (kind == ValueKind::kOptionalTensor) held.kind = ValueKind::kTensor;
  if (kind == ValueKind::kOptionalSequence) held.kind = ValueKind::kSequence;
  return held;
}

TensorType SequenceType(const TensorType& element) {
  return TensorType{element.dtype, element.shape, ValueKind::kSequence};
}

TensorType OptionalType(const TensorType& held) {
  return TensorType{held.dtype, held.shape,
                    held.kind == ValueKind::kSequence ? ValueKind::kOptionalSequence
                                                      : ValueKind::kOptionalTensor};
}

const Node* Graph::find_node(const std::string& node_name) const {
  for (const Node& node : nodes) {
    if (node.name == node_name) return &node;
  }
  return nullptr;
}

const Node* Graph::producer_of(const std::string& value) const {
  for (const Node& node : nodes) {
    for (const std::string& output : node.outputs) {
      if (output == value) return &node;
    }
  }
  return nullptr;
}

namespace {

std::string AttributeToString(const AttributeValue& value) {
  std::ostringstream out;
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, float>) {
          out << v;
        } else if constexpr (std::is_same_v<T, std::string>) {
          out << '"' << v << '"';
        } else if constexpr (std::is_same_v<T, Tensor>) {
          out << "tensor " << dtype_name(v.dtype()) << v.shape().to_string();
        } else if constexpr (std::is_same_v<T, GraphAttribute>) {
          if (v == nullptr) {
            out << "graph <null>";
          } else {
            out << "graph " << v->name << " (" << v->inputs.size() << " inputs, " << v->nodes.size()
                << " nodes, " << v->outputs.size() << " outputs)";
          }
        } else {
          out << '[';
          for (size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
          out << ']';
        }
      },
      value);
  return out.str();
}

}  // namespace

std::string Graph::to_string() const {
  std::ostringstream out;
  out << "graph " << name << "\n";
  for (const ValueInfo& input : inputs) {
    out << "  input " << input.name << ": " << input.type.to_string() << "\n";
  }
  for (const auto& [value_name, tensor] : initializers) {
    out << "  const " << value_name << ": " << dtype_name(tensor.dtype())
        << tensor.shape().to_string() << "\n";
  }
  const TopologicalOrder order = SortTopologically(*this);
  std::vector<size_t> listing = order.order;
  // Nodes on a cycle are listed last, in node order.
  for (size_t index : order.unsorted) listing.push_back(index);
  for (size_t index : listing) {
    const Node& node = nodes[index];
    out << "  ";
    for (size_t i = 0; i < node.outputs.size(); ++i) out << (i ? ", " : "") << node.outputs[i];
    out << " = " << node.op_type << "(";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      out << (i ? ", " : "") << (node.inputs[i].empty() ? "<absent>" : node.inputs[i]);
    }
    out << ")";
    if (!node.attributes.empty()) {
      out << " {";
      bool first = true;
      for (const auto& [key, value] : node.attributes) {
        out << (first ? "" : ", ") << key << "=" << AttributeToString(value);
        first = false;
      }
      out << "}";
    }
    out << "  # " << node.name << "\n";
  }
  for (const ValueInfo& output : outputs) {
    out << "  output " << output.name << ": " << output.type.to_string() << "\n";
  }
  return out.str();
}

}  // namespace loom
