#include "onnx_import/conformance/unsupported_features.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>

#include "kernels/onnx_dtype.h"
#include "kernels/registry.h"
#include "onnx_import/model_checks.h"
#include "onnx_import/onnx_op_versions.h"
#include "onnx_import/opset_adapter.h"

namespace loom::conformance {
namespace {

using onnx_import::IsDefaultDomain;
using onnx_import::kMinOpset;
using onnx_import::kNewestOnnxOpset;

std::string QualifiedOpType(const onnx::NodeProto& node) {
  return IsDefaultDomain(node.domain()) ? node.op_type() : node.domain() + "." + node.op_type();
}

// "uint16" for TensorProto::UINT16.
std::string ElementTypeName(int32_t elem_type) {
  std::string name =
      onnx::TensorProto_DataType_IsValid(elem_type)
          ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type))
          : "element type " + std::to_string(elem_type);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

void CheckElementType(int32_t elem_type, std::set<std::string>& out) {
  // UNDEFINED (0) says nothing about the tensor; the importer decides.
  if (elem_type == onnx::TensorProto::UNDEFINED) return;
  if (!kernels::DTypeFromOnnxDataType(elem_type)) out.insert("dtype " + ElementTypeName(elem_type));
}

void CheckType(const onnx::TypeProto& type, std::set<std::string>& out) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      CheckElementType(type.tensor_type().elem_type(), out);
      return;
    case onnx::TypeProto::kSequenceType: {
      // Loom runs sequences of tensors; a sequence of sequences or maps not.
      const onnx::TypeProto& element = type.sequence_type().elem_type();
      if (element.value_case() == onnx::TypeProto::kTensorType) {
        CheckType(element, out);
      } else if (element.value_case() != onnx::TypeProto::VALUE_NOT_SET) {
        out.insert("sequence type");
      }
      return;
    }
    case onnx::TypeProto::kMapType:
      out.insert("map type");
      return;
    case onnx::TypeProto::kOptionalType: {
      // Loom runs optionals of tensors and of sequences of tensors.
      const onnx::TypeProto& held = type.optional_type().elem_type();
      const bool supported =
          held.value_case() == onnx::TypeProto::kTensorType ||
          (held.value_case() == onnx::TypeProto::kSequenceType &&
           held.sequence_type().elem_type().value_case() == onnx::TypeProto::kTensorType);
      if (supported) {
        CheckType(held, out);
      } else {
        out.insert("optional type");
      }
      return;
    }
    case onnx::TypeProto::kSparseTensorType:
      out.insert("sparse tensor type");
      return;
    default:
      return;  // no type given: nothing to object to
  }
}

void CheckGraph(const onnx::GraphProto& graph, int opset, std::set<std::string>& out);

// `opset`: the model's default-domain opset, 0 if it has none.
void CheckNode(const onnx::NodeProto& node, int opset, std::set<std::string>& out) {
  if (!IsDefaultDomain(node.domain())) {
    out.insert("op " + QualifiedOpType(node));
  } else if (kernels::FindKernel(node.op_type()) == nullptr &&
             !onnx_import::AdapterReplacesOp(node.op_type())) {
    out.insert("op " + node.op_type());
  } else if (opset > 0) {
    const std::optional<int> version = onnx_import::OpVersionAtOpset(node.op_type(), opset);
    const onnx_import::OpVersionRule* rule =
        version ? onnx_import::FindVersionRule(node.op_type(), *version) : nullptr;
    if (rule == nullptr || rule->refused) {
      out.insert("op " + node.op_type() + " version " + std::to_string(version.value_or(0)));
    }
  }
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.has_t()) CheckElementType(attr.t().data_type(), out);
    for (const onnx::TensorProto& t : attr.tensors()) CheckElementType(t.data_type(), out);
    if (attr.has_sparse_tensor() || attr.sparse_tensors_size() > 0) out.insert("sparse tensor");
    // Control flow's subgraphs: their values and ops count too (a Loop
    // carrying a sequence is unsupported for the sequence).
    if (attr.has_g()) CheckGraph(attr.g(), opset, out);
    for (const onnx::GraphProto& g : attr.graphs()) CheckGraph(g, opset, out);
  }
}

void CheckGraph(const onnx::GraphProto& graph, int opset, std::set<std::string>& out) {
  for (const onnx::ValueInfoProto& v : graph.input()) CheckType(v.type(), out);
  for (const onnx::ValueInfoProto& v : graph.output()) CheckType(v.type(), out);
  for (const onnx::ValueInfoProto& v : graph.value_info()) CheckType(v.type(), out);
  for (const onnx::TensorProto& t : graph.initializer()) CheckElementType(t.data_type(), out);
  if (graph.sparse_initializer_size() > 0) out.insert("sparse initializer");
  for (const onnx::NodeProto& node : graph.node()) CheckNode(node, opset, out);
}

}  // namespace

std::vector<std::string> FindUnsupportedFeatures(const onnx::ModelProto& model) {
  std::set<std::string> out;
  int default_opset = 0;
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (!IsDefaultDomain(opset.domain())) continue;
    if (opset.version() < kMinOpset || opset.version() > kNewestOnnxOpset) {
      out.insert("opset " + std::to_string(opset.version()) + " (Loom imports " +
                 std::to_string(kMinOpset) + ".." + std::to_string(kNewestOnnxOpset) + ")");
    } else {
      default_opset = static_cast<int>(opset.version());
    }
  }
  CheckGraph(model.graph(), default_opset, out);
  return {out.begin(), out.end()};
}

std::vector<std::string> OpTypes(const onnx::ModelProto& model) {
  std::set<std::string> ops;
  for (const onnx::NodeProto& node : model.graph().node()) ops.insert(QualifiedOpType(node));
  return {ops.begin(), ops.end()};
}

bool IsDeliberateLimit(std::string_view message) {
  // The phrases Loom's own layers use for a limit (not for a bad model):
  static constexpr std::array<std::string_view, 4> kPhrases = {
      "no kernel for dtype",                // kernels/registry.cc, LookupKernel
      "which the kernel does not support",  // graph/type_inference.cc, dtype check
      "is not supported",                   // type rules: training_mode, ceil_mode, ...
      "unsupported op type",                // graph/verifier.cc, ops with no kernel
  };
  return std::any_of(kPhrases.begin(), kPhrases.end(), [&](std::string_view phrase) {
    return message.find(phrase) != std::string_view::npos;
  });
}

}  // namespace loom::conformance
