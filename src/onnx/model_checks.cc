#include "onnx/model_checks.h"

#include <algorithm>
#include <map>
#include <optional>

#include "kernels/registry.h"
#include "loom/errors.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"

namespace loom::onnx_import {
namespace {

// Node names listed per unsupported op before "... N more".
constexpr size_t kMaxListedNodes = 8;

bool IsExternal(const onnx::TensorProto& tensor) {
  return tensor.data_location() == onnx::TensorProto::EXTERNAL;
}

// A copy of `model` whose externally stored initializers are graph inputs
// instead (see RunOnnxChecker), or nullopt when there are none.
std::optional<onnx::ModelProto> WithoutExternalData(const onnx::ModelProto& model) {
  bool any = false;
  for (const onnx::TensorProto& tensor : model.graph().initializer()) any |= IsExternal(tensor);
  if (!any) return std::nullopt;
  onnx::ModelProto copy = model;
  onnx::GraphProto* graph = copy.mutable_graph();
  std::map<std::string, bool> is_input;
  for (const onnx::ValueInfoProto& input : graph->input()) is_input[input.name()] = true;
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (onnx::TensorProto& tensor : *graph->mutable_initializer()) {
    if (!IsExternal(tensor)) {
      *kept.Add() = std::move(tensor);
      continue;
    }
    if (is_input.count(tensor.name())) continue;
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name(tensor.name());
    onnx::TypeProto_Tensor* type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(tensor.data_type());
    for (int64_t d : tensor.dims()) type->mutable_shape()->add_dim()->set_dim_value(d);
  }
  graph->mutable_initializer()->Swap(&kept);
  return copy;
}

}  // namespace

bool IsDefaultDomain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

int DefaultDomainOpset(const onnx::ModelProto& model) {
  std::optional<int64_t> opset;
  for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
    if (!IsDefaultDomain(import.domain())) continue;
    if (opset) throw InvalidArgumentError("the default ONNX domain is imported twice");
    opset = import.version();
  }
  if (!opset) {
    throw InvalidArgumentError("the model imports no opset of the default ONNX domain");
  }
  const std::string supported = "(supported: " + std::to_string(kMinOpset) + " to " +
                                std::to_string(kMaxOpset) +
                                "; convert the model with onnx.version_converter)";
  if (*opset > kMaxOpset) {
    throw InvalidArgumentError("opset " + std::to_string(*opset) +
                               " of the default ONNX domain is not supported " + supported);
  }
  if (*opset < kMinOpset) {
    // Exporters stamp the opset where an op last changed (ONNX's own node
    // tests say opset 7 for And). When every op the model uses has the same
    // definition at kMinOpset, the model IS an opset-kMinOpset model.
    const std::vector<std::string> changed =
        OpsChangedSinceOpset(model.graph(), static_cast<int>(*opset));
    if (!changed.empty()) {
      std::string list;
      for (const std::string& op : changed) list += (list.empty() ? " " : ", ") + op;
      throw InvalidArgumentError("opset " + std::to_string(*opset) +
                                 " of the default ONNX domain is not supported " + supported +
                                 "; these ops changed since then:" + list);
    }
    return kMinOpset;
  }
  return static_cast<int>(*opset);
}

std::vector<std::string> OpsChangedSinceOpset(const onnx::GraphProto& graph, int opset) {
  std::vector<std::string> changed;
  for (const onnx::NodeProto& node : graph.node()) {
    if (!IsDefaultDomain(node.domain())) continue;
    const onnx::OpSchema* at_opset = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
    const onnx::OpSchema* at_min = onnx::OpSchemaRegistry::Schema(node.op_type(), kMinOpset, "");
    const bool same = at_opset != nullptr && at_min != nullptr &&
                      at_opset->since_version() == at_min->since_version();
    if (!same && std::find(changed.begin(), changed.end(), node.op_type()) == changed.end()) {
      changed.push_back(node.op_type());
    }
  }
  return changed;
}

void CheckOpsSupported(const onnx::GraphProto& graph, const std::vector<std::string>& node_names) {
  std::map<std::string, std::vector<std::string>> unsupported;  // op → nodes
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (!IsDefaultDomain(node.domain())) {
      unsupported[node.domain() + "::" + node.op_type()].push_back(node_names[i]);
    } else if (kernels::FindKernel(node.op_type()) == nullptr ||
               kernels::IsInternalOp(node.op_type())) {
      unsupported[node.op_type().empty() ? "<empty op type>" : node.op_type()].push_back(
          node_names[i]);
    }
  }
  if (unsupported.empty()) return;
  std::string message = std::to_string(unsupported.size()) + " unsupported op type" +
                        (unsupported.size() == 1 ? "" : "s") + ":";
  for (const auto& [op, nodes] : unsupported) {
    message += "\n  " + op + " (node" + (nodes.size() == 1 ? " " : "s ");
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i == kMaxListedNodes) {
        message += ", ... " + std::to_string(nodes.size() - i) + " more";
        break;
      }
      message += (i ? ", '" : "'") + nodes[i] + "'";
    }
    message += ")";
  }
  throw InvalidArgumentError(message);
}

void RunOnnxChecker(const onnx::ModelProto& model) {
  if (model.ir_version() > onnx::Version::IR_VERSION) return;
  const std::optional<onnx::ModelProto> copy = WithoutExternalData(model);
  try {
    onnx::checker::check_model(copy ? *copy : model);
  } catch (const std::exception& e) {
    throw InvalidArgumentError(std::string("the ONNX checker rejects the model: ") + e.what());
  }
}

}  // namespace loom::onnx_import
