#include "onnx_import/model_checks.h"

#include <algorithm>
#include <map>
#include <optional>

#include "kernels/registry.h"
#include "loom/errors.h"
#include "onnx_import/node_names.h"
#include "onnx_import/onnx_op_versions.h"
#include "onnx_import/opset_adapter.h"

namespace loom::onnx_import {
namespace {

// Node names listed per unsupported op before "... N more".
constexpr size_t kMaxListedNodes = 8;

// Calls fn(subgraph) for each GRAPH / GRAPHS attribute of `node`.
template <typename Fn>
void ForEachSubgraph(const onnx::NodeProto& node, Fn&& fn) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    if (attribute.has_g()) fn(attribute.g());
    for (const onnx::GraphProto& graph : attribute.graphs()) fn(graph);
  }
}

void CollectOpTypes(const onnx::GraphProto& graph, std::vector<std::string>& ops) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (IsDefaultDomain(node.domain()) &&
        std::find(ops.begin(), ops.end(), node.op_type()) == ops.end()) {
      ops.push_back(node.op_type());
    }
    ForEachSubgraph(node, [&](const onnx::GraphProto& subgraph) { CollectOpTypes(subgraph, ops); });
  }
}

void CollectUnsupported(const onnx::GraphProto& graph, const std::vector<std::string>& node_names,
                        std::map<std::string, std::vector<std::string>>& unsupported) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (node.domain() == "ai.loom") {
      // What save_onnx_model writes for Loom's own nodes: any op Loom has a
      // kernel for, internal ones included, with the attributes it wrote.
      if (kernels::FindKernel(node.op_type()) == nullptr) {
        unsupported[node.domain() + "::" + node.op_type()].push_back(node_names[i]);
      }
    } else if (!IsDefaultDomain(node.domain())) {
      unsupported[node.domain() + "::" + node.op_type()].push_back(node_names[i]);
    } else if ((kernels::FindKernel(node.op_type()) == nullptr &&
                !AdapterReplacesOp(node.op_type())) ||
               kernels::IsInternalOp(node.op_type())) {
      unsupported[node.op_type().empty() ? "<empty op type>" : node.op_type()].push_back(
          node_names[i]);
    }
    // Control flow's subgraphs: their nodes are named within the subgraph.
    ForEachSubgraph(node, [&](const onnx::GraphProto& subgraph) {
      CollectUnsupported(subgraph, UniqueNodeNames(subgraph), unsupported);
    });
  }
}

}  // namespace

bool IsDefaultDomain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

int DefaultDomainOpset(const onnx::ModelProto& model, std::span<const InlinedFunction> functions) {
  std::optional<int64_t> opset;
  for (const onnx::OperatorSetIdProto& import : model.opset_import()) {
    if (!IsDefaultDomain(import.domain())) continue;
    if (opset) throw InvalidArgumentError("the default ONNX domain is imported twice");
    opset = import.version();
  }
  if (!opset) {
    std::string imports;  // "custom::F 13, custom::G 18"
    bool agree = true;
    for (const InlinedFunction& function : functions) {
      if (!function.default_opset) continue;
      if (opset && *opset != *function.default_opset) agree = false;
      opset = function.default_opset;
      imports += (imports.empty() ? "" : ", ") + function.label + " " +
                 std::to_string(*function.default_opset);
    }
    if (!agree) {
      throw InvalidArgumentError(
          "the model imports no opset of the default ONNX domain, and its functions import "
          "different ones (" +
          imports + ")");
    }
  }
  if (!opset) {
    throw InvalidArgumentError("the model imports no opset of the default ONNX domain");
  }
  if (*opset < kMinOpset || *opset > kNewestOnnxOpset) {
    throw InvalidArgumentError(
        "opset " + std::to_string(*opset) +
        " of the default ONNX domain is not supported (supported: " + std::to_string(kMinOpset) +
        " to " + std::to_string(kNewestOnnxOpset) +
        "; convert the model with onnx.version_converter)");
  }
  return static_cast<int>(*opset);
}

std::vector<std::string> DefaultDomainOpTypes(const onnx::GraphProto& graph) {
  std::vector<std::string> ops;
  CollectOpTypes(graph, ops);
  return ops;
}

void CheckOpsSupported(const onnx::GraphProto& graph, const std::vector<std::string>& node_names) {
  std::map<std::string, std::vector<std::string>> unsupported;  // op → nodes
  CollectUnsupported(graph, node_names, unsupported);
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

}  // namespace loom::onnx_import
