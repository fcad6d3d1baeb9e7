#include "onnx_import/function_inliner.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "loom/errors.h"
#include "onnx_import/model_checks.h"
#include "onnx_import/onnx_op_versions.h"
#include "onnx_import/opset_adapter.h"

namespace loom::onnx_import {
namespace {

using NodeList = google::protobuf::RepeatedPtrField<onnx::NodeProto>;

// (domain, name, overload) with the default domain spelled "".
using FunctionKey = std::tuple<std::string, std::string, std::string>;

FunctionKey KeyOf(const std::string& domain, const std::string& name, const std::string& overload) {
  return {IsDefaultDomain(domain) ? std::string() : domain, name, overload};
}

// "custom::Gelu", "Gelu" in the default domain, "custom::Gelu (overload 'f16')".
std::string Label(const onnx::FunctionProto& function) {
  std::string label = IsDefaultDomain(function.domain())
                          ? function.name()
                          : function.domain() + "::" + function.name();
  if (!function.overload().empty()) label += " (overload '" + function.overload() + "')";
  return label;
}

// a + b, capped at limit + 1 ("over the limit"). Terms are counts from a
// message under 2 GiB or earlier capped sums, so a + b cannot overflow.
size_t CappedAdd(size_t a, size_t b, size_t limit) { return std::min(a + b, limit + 1); }

std::string TypeName(onnx::AttributeProto::AttributeType type) {
  return onnx::AttributeProto::AttributeType_IsValid(type)
             ? onnx::AttributeProto::AttributeType_Name(type)
             : "type " + std::to_string(static_cast<int>(type));
}

// "node 'n1' (Add)", or "node 3 (Add)" for an unnamed one.
std::string BodyNode(const onnx::NodeProto& node, int index) {
  return "node " + (node.name().empty() ? std::to_string(index) : "'" + node.name() + "'") + " (" +
         node.op_type() + ")";
}

std::unordered_set<std::string> FormalInputs(const onnx::FunctionProto& function) {
  return {function.input().begin(), function.input().end()};
}

// Formal outputs that are formal inputs (`F(x) => (x)`): each becomes an
// Identity node, since no node of the body produces it.
size_t PassThroughCount(const onnx::FunctionProto& function) {
  const std::unordered_set<std::string> inputs = FormalInputs(function);
  return static_cast<size_t>(
      std::count_if(function.output().begin(), function.output().end(),
                    [&](const std::string& output) { return inputs.count(output) > 0; }));
}

// Whether Loom's kernels read `op`'s definition `version` as it is (a version
// rule without a rewrite, opset_adapter.h): such a node means what it means
// under the newest definition, which the kernels implement.
bool ReadAsIs(std::string_view op, std::optional<int> version) {
  if (!version) return false;
  const OpVersionRule* rule = FindVersionRule(op, *version);
  return rule != nullptr && rule->rewrite == nullptr && !rule->refused;
}

class Inliner {
 public:
  explicit Inliner(onnx::ModelProto& model) : model_(model) {
    for (const onnx::FunctionProto& function : model.functions()) {
      if (!functions_
               .emplace(KeyOf(function.domain(), function.name(), function.overload()), &function)
               .second) {
        throw InvalidArgumentError("function '" + Label(function) + "' is defined twice");
      }
    }
  }

  std::vector<InlinedFunction> Run() {
    if (functions_.empty()) return {};
    onnx::GraphProto& graph = *model_.mutable_graph();
    // Sizes first: recursion, nesting and the limits are refused before
    // anything is copied.
    Extent total;
    bool calls = false;
    for (const onnx::NodeProto& node : graph.node()) {
      if (const onnx::FunctionProto* function = Find(node)) {
        std::vector<const onnx::FunctionProto*> path;
        total.Add(Measure(*function, path));
        calls = true;
      }
    }
    if (!calls) return {};
    if (total.nodes > kMaxInlinedNodes) {
      throw InvalidArgumentError("inlining the model's functions would add more than " +
                                 std::to_string(kMaxInlinedNodes) + " nodes");
    }
    if (total.fields > kMaxInlinedFields) {
      throw InvalidArgumentError("inlining the model's functions would copy more than " +
                                 std::to_string(kMaxInlinedFields) +
                                 " input, output and attribute entries");
    }
    ReserveGraphNames(graph);
    NodeList nodes;
    nodes.Reserve(graph.node_size());
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      if (const onnx::FunctionProto* function = Find(node)) {
        Expand(node, *function, nodes);
      } else {
        nodes.Add(std::move(node));
      }
    }
    graph.mutable_node()->Swap(&nodes);
    return std::move(inlined_);
  }

 private:
  const onnx::FunctionProto* Find(const onnx::NodeProto& node) const {
    auto it = functions_.find(KeyOf(node.domain(), node.op_type(), node.overload()));
    return it == functions_.end() ? nullptr : it->second;
  }

  // What one call of a function opens: the nodes it adds and the entries
  // it binds or copies (each at most its limit + 1), and the longest chain
  // of calls, itself included.
  struct Extent {
    size_t nodes = 0;
    size_t fields = 0;
    int depth = 1;

    void Add(const Extent& other) {
      nodes = CappedAdd(nodes, other.nodes, kMaxInlinedNodes);
      fields = CappedAdd(fields, other.fields, kMaxInlinedFields);
    }
  };

  // `path`: the functions whose bodies lead here, outermost first.
  Extent Measure(const onnx::FunctionProto& function,
                 std::vector<const onnx::FunctionProto*>& path) {
    const auto too_deep = [&] {
      return InvalidArgumentError("function calls nest more than " +
                                  std::to_string(kMaxFunctionNesting) + " deep (starting at '" +
                                  Label(path.empty() ? function : *path.front()) + "')");
    };
    if (auto known = extents_.find(&function); known != extents_.end()) {
      if (path.size() + static_cast<size_t>(known->second.depth) >
          static_cast<size_t>(kMaxFunctionNesting)) {
        throw too_deep();
      }
      return known->second;
    }
    if (auto open = std::find(path.begin(), path.end(), &function); open != path.end()) {
      std::string cycle;
      for (auto it = open; it != path.end(); ++it) cycle += Label(**it) + " → ";
      throw InvalidArgumentError("function '" + Label(function) + "' calls itself: " + cycle +
                                 Label(function));
    }
    if (path.size() >= static_cast<size_t>(kMaxFunctionNesting)) throw too_deep();
    path.push_back(&function);
    // Each call binds the formal inputs and outputs and looks at the
    // defaults; each body node is copied with its inputs, outputs and
    // attributes.
    Extent extent;
    extent.Add({.nodes = PassThroughCount(function),
                .fields = static_cast<size_t>(function.input_size()) +
                          static_cast<size_t>(function.output_size()) +
                          static_cast<size_t>(function.attribute_proto_size())});
    for (const onnx::NodeProto& node : function.node()) {
      const size_t fields = 1 + static_cast<size_t>(node.input_size()) +
                            static_cast<size_t>(node.output_size()) +
                            static_cast<size_t>(node.attribute_size());
      const onnx::FunctionProto* callee = Find(node);
      if (callee == nullptr) {
        extent.Add({.nodes = 1, .fields = fields});
        continue;
      }
      const Extent inner = Measure(*callee, path);
      extent.Add({.nodes = 0, .fields = fields});
      extent.Add(inner);
      extent.depth = std::max(extent.depth, inner.depth + 1);
    }
    path.pop_back();
    extents_.emplace(&function, extent);
    return extent;
  }

  void ReserveGraphNames(const onnx::GraphProto& graph) {
    for (const auto& info : graph.input()) taken_.insert(info.name());
    for (const auto& info : graph.output()) taken_.insert(info.name());
    for (const auto& info : graph.value_info()) taken_.insert(info.name());
    for (const auto& tensor : graph.initializer()) taken_.insert(tensor.name());
    for (const auto& sparse : graph.sparse_initializer()) taken_.insert(sparse.values().name());
    for (const onnx::NodeProto& node : graph.node()) {
      taken_.insert(node.name());
      taken_.insert(node.input().begin(), node.input().end());
      taken_.insert(node.output().begin(), node.output().end());
    }
  }

  // `base`, or `base` + "_<k>" when the graph (or an earlier fresh name)
  // already has it; one namespace for values and nodes keeps both unique.
  std::string Fresh(const std::string& base) {
    if (taken_.insert(base).second) return base;
    int& k = suffixes_[base];  // resumes where the last clash of `base` stopped
    std::string name;
    do {
      name = base + "_" + std::to_string(++k);
    } while (!taken_.insert(name).second);
    return name;
  }

  // Records `function` for the opset checks, once.
  void Note(const onnx::FunctionProto& function) {
    if (!noted_.insert(&function).second) return;
    InlinedFunction info;
    info.label = Label(function);
    for (const onnx::OperatorSetIdProto& import : function.opset_import()) {
      if (!IsDefaultDomain(import.domain())) continue;
      if (info.default_opset) {
        throw InvalidArgumentError("function '" + info.label +
                                   "' imports the default ONNX domain twice");
      }
      info.default_opset = import.version();
    }
    for (const onnx::NodeProto& node : function.node()) {
      if (!IsDefaultDomain(node.domain()) || Find(node) != nullptr) continue;
      std::vector<std::string>& ops = info.default_domain_ops;
      if (std::find(ops.begin(), ops.end(), node.op_type()) == ops.end()) {
        ops.push_back(node.op_type());
      }
    }
    inlined_.push_back(std::move(info));
  }

  void Append(onnx::NodeProto&& node, NodeList& out) {
    // Measure bounds the total; this keeps the bound if the two drift.
    if (++added_ > kMaxInlinedNodes) {
      throw InvalidArgumentError("inlining the model's functions would add more than " +
                                 std::to_string(kMaxInlinedNodes) + " nodes");
    }
    out.Add(std::move(node));
  }

  // Appends to `out` the body of `function` as called by `call` (whose
  // attribute references, if it is itself in a body, are resolved).
  void Expand(const onnx::NodeProto& call, const onnx::FunctionProto& function, NodeList& out) {
    Note(function);
    const std::string label = "function '" + Label(function) + "'";
    const std::string caller = call.name().empty() ? "a node" : "node '" + call.name() + "'";
    if (call.input_size() > function.input_size() || call.output_size() > function.output_size()) {
      throw InvalidArgumentError(
          caller + " calls " + label + " with " + std::to_string(call.input_size()) +
          " inputs and " + std::to_string(call.output_size()) + " outputs; it takes " +
          std::to_string(function.input_size()) + " and " + std::to_string(function.output_size()));
    }
    const std::string prefix = call.name().empty()
                                   ? Fresh(function.name().empty() ? "function" : function.name())
                                   : call.name();

    // Body name → graph name.
    std::unordered_map<std::string, std::string> names;
    for (int i = 0; i < function.input_size(); ++i) {
      const std::string& formal = function.input(i);
      if (formal.empty()) {
        throw InvalidArgumentError(label + ": input " + std::to_string(i) + " has no name");
      }
      if (!names.emplace(formal, i < call.input_size() ? call.input(i) : "").second) {
        throw InvalidArgumentError(label + ": input '" + formal + "' is declared twice");
      }
    }
    const std::unordered_set<std::string> inputs = FormalInputs(function);
    std::vector<std::string> produced;  // in body order, so fresh names are reproducible
    std::unordered_set<std::string> produced_set;
    for (int i = 0; i < function.node_size(); ++i) {
      for (const std::string& output : function.node(i).output()) {
        if (output.empty()) continue;
        if (inputs.count(output)) {
          throw InvalidArgumentError(label + ": " + BodyNode(function.node(i), i) + " writes '" +
                                     output + "', an input of the function");
        }
        if (produced_set.insert(output).second) produced.push_back(output);
      }
    }
    std::vector<std::pair<std::string, std::string>> pass_through;  // Identity: from, to
    for (int j = 0; j < function.output_size(); ++j) {
      const std::string& formal = function.output(j);
      const std::string actual = j < call.output_size() ? call.output(j) : "";
      if (inputs.count(formal)) {
        if (actual.empty()) continue;
        if (names.at(formal).empty()) {
          throw InvalidArgumentError(caller + " calls " + label + " without input '" + formal +
                                     "', which is also its output " + std::to_string(j));
        }
        pass_through.emplace_back(names.at(formal), actual);
        continue;
      }
      if (formal.empty() || !produced_set.count(formal)) {
        throw InvalidArgumentError(label + ": output " + std::to_string(j) + " ('" + formal +
                                   "') is not produced by any node of its body");
      }
      if (!names.emplace(formal, actual.empty() ? Fresh(prefix + "/" + formal) : actual).second) {
        throw InvalidArgumentError(label + ": output '" + formal + "' is declared twice");
      }
    }
    for (const std::string& value : produced) {
      if (!names.count(value)) names.emplace(value, Fresh(prefix + "/" + value));
    }

    std::map<std::string, const onnx::AttributeProto*> given;  // the first of each name
    for (const onnx::AttributeProto& attribute : call.attribute()) {
      given.emplace(attribute.name(), &attribute);
    }
    for (const onnx::AttributeProto& attribute : function.attribute_proto()) {
      given.emplace(attribute.name(), &attribute);  // a default, unless the caller set it
    }

    for (int i = 0; i < function.node_size(); ++i) {
      const onnx::NodeProto& body = function.node(i);
      onnx::NodeProto node = body;
      node.set_name(
          Fresh(prefix + "/" +
                (body.name().empty() ? body.op_type() + "_" + std::to_string(i) : body.name())));
      for (std::string& input : *node.mutable_input()) {
        if (input.empty()) continue;
        auto bound = names.find(input);
        if (bound == names.end()) {
          throw InvalidArgumentError(label + ": " + BodyNode(body, i) + " reads '" + input +
                                     "', which is neither an input of the function nor "
                                     "produced in its body");
        }
        input = bound->second;
      }
      for (std::string& output : *node.mutable_output()) {
        if (!output.empty()) output = names.at(output);
      }
      ResolveReferences(node, given, label);
      RenameInSubgraphs(node, names);
      if (const onnx::FunctionProto* callee = Find(node)) {
        Expand(node, *callee, out);  // Measure bounded the depth
      } else {
        Append(std::move(node), out);
      }
    }
    for (const auto& [from, to] : pass_through) {
      onnx::NodeProto identity;
      identity.set_name(Fresh(prefix + "/Identity"));
      identity.set_op_type("Identity");
      identity.add_input(from);
      identity.add_output(to);
      Append(std::move(identity), out);
    }
  }

  // Replaces each attribute of `node` that refers to a function attribute
  // by the value `given` has for it, or drops it (the op's default applies).
  // A body node's subgraphs (control flow) read the function's values by
  // their names in the body: renames those references as the inlined nodes'
  // inputs are renamed, leaving names a subgraph defines itself (and those
  // of its own subgraphs) alone.
  static void RenameInSubgraphs(onnx::NodeProto& node,
                                const std::unordered_map<std::string, std::string>& names) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) RenameOuterReferences(*attribute.mutable_g(), names);
      for (onnx::GraphProto& graph : *attribute.mutable_graphs()) {
        RenameOuterReferences(graph, names);
      }
    }
  }

  static void RenameOuterReferences(onnx::GraphProto& graph,
                                    std::unordered_map<std::string, std::string> names) {
    for (const onnx::ValueInfoProto& input : graph.input()) names.erase(input.name());
    for (const onnx::TensorProto& tensor : graph.initializer()) names.erase(tensor.name());
    for (const onnx::NodeProto& node : graph.node()) {
      for (const std::string& output : node.output()) names.erase(output);
    }
    const auto rename = [&names](std::string& value) {
      auto it = names.find(value);
      if (it != names.end()) value = it->second;
    };
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      for (std::string& input : *node.mutable_input()) rename(input);
      RenameInSubgraphs(node, names);
    }
    for (onnx::ValueInfoProto& output : *graph.mutable_output()) rename(*output.mutable_name());
  }

  static void ResolveReferences(onnx::NodeProto& node,
                                const std::map<std::string, const onnx::AttributeProto*>& given,
                                const std::string& label) {
    const bool any = std::any_of(node.attribute().begin(), node.attribute().end(),
                                 [](const auto& a) { return !a.ref_attr_name().empty(); });
    if (!any) return;
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> resolved;
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.ref_attr_name().empty()) {
        resolved.Add(std::move(attribute));
        continue;
      }
      auto value = given.find(attribute.ref_attr_name());
      if (value == given.end()) continue;
      if (attribute.type() != onnx::AttributeProto::UNDEFINED &&
          value->second->type() != attribute.type()) {
        throw InvalidArgumentError(label + ": attribute '" + attribute.name() + "' (" +
                                   TypeName(attribute.type()) + ") of node '" + node.name() +
                                   "' refers to '" + attribute.ref_attr_name() +
                                   "', which is given as " + TypeName(value->second->type()));
      }
      onnx::AttributeProto* copy = resolved.Add();
      *copy = *value->second;
      copy->set_name(attribute.name());
    }
    node.mutable_attribute()->Swap(&resolved);
  }

  onnx::ModelProto& model_;
  std::map<FunctionKey, const onnx::FunctionProto*> functions_;
  std::unordered_map<const onnx::FunctionProto*, Extent> extents_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int> suffixes_;
  std::unordered_set<const onnx::FunctionProto*> noted_;
  std::vector<InlinedFunction> inlined_;
  size_t added_ = 0;
};

}  // namespace

std::vector<InlinedFunction> InlineFunctions(onnx::ModelProto& model) {
  return Inliner(model).Run();
}

// A function's body binds to the operators of its own opset_import. After
// inlining, Loom reads every node at the model's opset (CheckOpVersions,
// AdaptToLatestOpset), so a body node is read right when its op has:
//   - the same definition (since_version) at both opsets — ONNX's own
//     compatibility rule for functions (onnx.proto, FunctionProto.
//     opset_import; ONNX's checker tests exactly that); or
//   - definitions at both that the kernels read as they are: no rewrite
//     applies at the model's opset, and the node's own version means what
//     the newest one means (Add-13 vs Add-14: element types only).
// Anything else (ReduceMean-13's axes attribute in a model at 18, an op the
// model's opset does not have yet) is refused with the function, both
// opsets and the ops. Adapting each body node from its own opset would
// accept more, but needs a per-node opset in the adapter; exporters write
// functions at the model's opset.
void CheckFunctionOpsets(std::span<const InlinedFunction> functions, int opset) {
  const std::string at_model = "opset " + std::to_string(opset);
  std::string problems;
  int count = 0;
  for (const InlinedFunction& function : functions) {
    if (!function.default_opset || *function.default_opset == opset) continue;
    const int64_t own = *function.default_opset;
    const std::string head = "function '" + function.label + "' imports opset " +
                             std::to_string(own) + " of the default domain, the model " +
                             std::to_string(opset);
    if (own < kMinOpset || own > kNewestOnnxOpset) {
      ++count;
      problems += "\n  " + head + "; Loom reads opsets " + std::to_string(kMinOpset) + " to " +
                  std::to_string(kNewestOnnxOpset);
      continue;
    }
    const int own_opset = static_cast<int>(own);
    const std::string at_own = "opset " + std::to_string(own_opset);
    std::string differing;
    for (const std::string& op : function.default_domain_ops) {
      const std::optional<int> theirs = OpVersionAtOpset(op, own_opset);
      const std::optional<int> ours = OpVersionAtOpset(op, opset);
      if (theirs == ours || (ReadAsIs(op, theirs) && ReadAsIs(op, ours))) continue;
      const auto describe = [](const std::optional<int>& version, const std::string& where) {
        return version ? "version " + std::to_string(*version) + " at " + where
                       : "does not exist at " + where;
      };
      differing += (differing.empty() ? "" : "; ") + op + " is " + describe(theirs, at_own) + ", " +
                   describe(ours, at_model);
    }
    if (differing.empty()) continue;
    ++count;
    problems += "\n  " + head + ", and these ops differ between the two: " + differing;
  }
  if (count == 0) return;
  throw InvalidArgumentError(
      std::to_string(count) + " function" + (count == 1 ? "" : "s") +
      " at a default-domain opset whose ops differ from the model's:" + problems);
}

}  // namespace loom::onnx_import
