// Type inference of If, Loop and Scan (control_flow.h): each subgraph is
// typed as a graph of its own from the types the op gives its inputs.
#include "graph/control_flow.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "graph/sequence_ops.h"
#include "graph/type_inference.h"
#include "graph/verifier.h"
#include "loom/errors.h"

namespace loom::graph {

const Graph& RequireSubgraph(const NodeTypeContext& ctx, const std::string& name) {
  auto it = ctx.node().attributes.find(name);
  if (it == ctx.node().attributes.end()) ctx.Fail("attribute '" + name + "' is required");
  const auto* graph = std::get_if<GraphAttribute>(&it->second);
  if (graph == nullptr || *graph == nullptr) {
    ctx.Fail("attribute '" + name + "' must be a graph, got " +
             std::string(AttributeKindName(it->second)));
  }
  return **graph;
}

// A copy of `body` with `input_types`, checked and typed.
std::shared_ptr<Graph> TypeSubgraph(const NodeTypeContext& ctx, const std::string& attribute,
                                    const Graph& body, const std::vector<TensorType>& input_types) {
  if (body.inputs.size() != input_types.size()) {
    ctx.Fail("subgraph '" + attribute + "' has " + std::to_string(body.inputs.size()) +
             " inputs, expected " + std::to_string(input_types.size()) + " (" +
             std::to_string(ctx.node().implicit_inputs) + " of them outer-scope values)");
  }
  auto typed = std::make_shared<Graph>(body);
  for (size_t i = 0; i < input_types.size(); ++i) typed->inputs[i].type = input_types[i];
  try {
    const SubgraphDepthGuard depth("node '" + ctx.node().name + "'");
    VerifyStructure(*typed);
    InferTypes(*typed);
  } catch (const SubgraphDepthError&) {
    throw;
  } catch (const InvalidArgumentError& e) {
    ctx.Fail("subgraph '" + attribute + "': " + e.what());
  }
  return typed;
}

namespace {

thread_local int subgraph_depth = 0;

// How often a Loop body or Scan body is typed while its carried values'
// shapes settle: the first try, one with the changing dims unknown, one
// with unknown ranks.
constexpr int kMaxTypingRounds = 3;

const TensorType kInt64Scalar{DType::kInt64, SymbolicShape{}};
const TensorType kBoolScalar{DType::kBool, SymbolicShape{}};

// The types of the node's captures (its implicit inputs).
std::vector<TensorType> CaptureTypes(const NodeTypeContext& ctx) {
  std::vector<TensorType> types;
  for (size_t i = ctx.node().num_onnx_inputs(); i < ctx.num_inputs(); ++i) {
    types.push_back(ctx.input(i));
  }
  return types;
}

// Two shapes a value may have: each dim where they agree, an unknown one
// where they differ; unknown rank when the ranks differ.
std::optional<SymbolicShape> MergeShapes(const NodeTypeContext& ctx,
                                         const std::optional<SymbolicShape>& a,
                                         const std::optional<SymbolicShape>& b) {
  if (!a || !b || a->size() != b->size()) return std::nullopt;
  SymbolicShape merged;
  for (size_t i = 0; i < a->size(); ++i) {
    merged.push_back((*a)[i] == (*b)[i] ? (*a)[i] : ctx.UnknownDim());
  }
  return merged;
}

// Whether a carried value typed `in` also describes the body's `out`: the
// same rank, each dim equal or already unknown in `in`.
bool Covers(const std::optional<SymbolicShape>& in, const std::optional<SymbolicShape>& out) {
  if (!in) return true;
  if (!out || in->size() != out->size()) return false;
  for (size_t i = 0; i < in->size(); ++i) {
    if (!((*in)[i] == (*out)[i]) && !IsUnknownDim((*in)[i])) return false;
  }
  return true;
}

// Types a loop body whose inputs [first, first + carried) are values carried
// from one iteration to the next as its outputs [out_first, ...). Returns
// the typed body; `carried_types` ends as the carried values' settled types.
std::shared_ptr<Graph> TypeLoopBody(const NodeTypeContext& ctx, const std::string& attribute,
                                    const Graph& body, std::vector<TensorType> input_types,
                                    size_t first, size_t carried, size_t out_first) {
  for (int round = 0;; ++round) {
    std::shared_ptr<Graph> typed = TypeSubgraph(ctx, attribute, body, input_types);
    if (typed->outputs.size() < out_first + carried) {
      ctx.Fail("subgraph '" + attribute + "' has " + std::to_string(typed->outputs.size()) +
               " outputs, expected at least " + std::to_string(out_first + carried));
    }
    bool settled = true;
    for (size_t i = 0; i < carried; ++i) {
      TensorType& in = input_types[first + i];
      const TensorType& out = typed->outputs[out_first + i].type;
      // An optional carried in may come out as what it holds (ONNX's
      // loop16_seq_none: an empty optional sequence starts a sequence).
      const bool kinds_fit =
          in.kind == out.kind || (in.is_optional() && in.element_of_optional().kind == out.kind);
      if (in.dtype != out.dtype || !kinds_fit) {
        ctx.Fail("subgraph '" + attribute + "' carries input '" + typed->inputs[first + i].name +
                 "' " + in.to_string() + " into output '" + typed->outputs[out_first + i].name +
                 "' " + out.to_string() + ": the " + (kinds_fit ? "dtypes" : "kinds") + " differ");
      }
      if (Covers(in.shape, out.shape)) continue;
      settled = false;
      in.shape =
          round + 1 < kMaxTypingRounds - 1 ? MergeShapes(ctx, in.shape, out.shape) : std::nullopt;
    }
    if (settled || round + 1 == kMaxTypingRounds) return typed;
  }
}

// Scan's and Loop's scan outputs: `element` with `length` inserted at `axis`
// (of the result's rank); unknown rank stays unknown.
TensorType Stacked(const NodeTypeContext& ctx, const TensorType& element, const Dim& length,
                   int64_t axis) {
  if (!element.is_tensor()) {
    ctx.Fail("a scan output is " + element.to_string() + "; scan outputs must be tensors");
  }
  if (!element.shape) return {element.dtype, std::nullopt};
  SymbolicShape shape = *element.shape;
  const int position =
      ctx.NormalizeAxis(axis, static_cast<int>(shape.size()) + 1, "attribute 'scan_output_axes'");
  shape.insert(shape.begin() + position, length);
  return {element.dtype, shape};
}

ControlFlowTypes InferIfTypes(const NodeTypeContext& ctx) {
  if (ctx.node().num_onnx_inputs() != 1) {
    ctx.Fail("expected 1 input (cond), got " + std::to_string(ctx.node().num_onnx_inputs()));
  }
  const TensorType& cond = ctx.input(0);
  if (cond.dtype != DType::kBool) ctx.Fail("cond must be bool, got " + cond.to_string());
  const std::vector<TensorType> captures = CaptureTypes(ctx);
  // A branch that cannot be typed for these inputs may still never be
  // taken (ONNX's expanded AffineGrid has a 2-D branch beside its 3-D one,
  // chosen by the input's rank at run time): the other branch types the
  // outputs, and the failing one keeps only its input types; running it
  // fails in its kernels. Both failing is the model's error.
  std::shared_ptr<Graph> then_branch, else_branch;
  std::string then_error, else_error;
  const auto type_branch = [&](const char* name, std::shared_ptr<Graph>& typed,
                               std::string& error) {
    try {
      typed = TypeSubgraph(ctx, name, RequireSubgraph(ctx, name), captures);
    } catch (const SubgraphDepthError&) {
      throw;
    } catch (const InvalidArgumentError& e) {
      error = e.what();
    }
  };
  type_branch("then_branch", then_branch, then_error);
  type_branch("else_branch", else_branch, else_error);
  if (!then_branch && !else_branch) throw InvalidArgumentError(then_error);
  const auto untyped = [&](const char* name) {
    auto graph = std::make_shared<Graph>(RequireSubgraph(ctx, name));
    for (size_t i = 0; i < captures.size() && i < graph->inputs.size(); ++i) {
      graph->inputs[i].type = captures[i];
    }
    return graph;
  };
  if (!then_branch || !else_branch) {
    ControlFlowTypes result;
    const std::shared_ptr<Graph>& typed = then_branch ? then_branch : else_branch;
    if (typed->outputs.size() != ctx.num_outputs()) {
      ctx.Fail("the branches have " + std::to_string(typed->outputs.size()) +
               " outputs but the node has " + std::to_string(ctx.num_outputs()));
    }
    for (const ValueInfo& output : typed->outputs) result.outputs.push_back(output.type);
    result.subgraphs = {{"else_branch", else_branch ? else_branch : untyped("else_branch")},
                        {"then_branch", then_branch ? then_branch : untyped("then_branch")}};
    return result;
  }
  if (then_branch->outputs.size() != else_branch->outputs.size()) {
    ctx.Fail("then_branch has " + std::to_string(then_branch->outputs.size()) +
             " outputs but else_branch has " + std::to_string(else_branch->outputs.size()));
  }
  if (then_branch->outputs.size() != ctx.num_outputs()) {
    ctx.Fail("the branches have " + std::to_string(then_branch->outputs.size()) +
             " outputs but the node has " + std::to_string(ctx.num_outputs()));
  }
  ControlFlowTypes result;
  for (size_t i = 0; i < then_branch->outputs.size(); ++i) {
    const TensorType& a = then_branch->outputs[i].type;
    const TensorType& b = else_branch->outputs[i].type;
    if (a.dtype != b.dtype || a.kind != b.kind) {
      ctx.Fail("output " + std::to_string(i) + " is " + a.to_string() + " in then_branch but " +
               b.to_string() + " in else_branch: the " + (a.kind != b.kind ? "kinds" : "dtypes") +
               " differ");
    }
    result.outputs.push_back({a.dtype, MergeShapes(ctx, a.shape, b.shape), a.kind});
  }
  result.subgraphs = {{"else_branch", std::move(else_branch)},
                      {"then_branch", std::move(then_branch)}};
  return result;
}

ControlFlowTypes InferLoopTypes(const NodeTypeContext& ctx) {
  const size_t onnx_inputs = ctx.node().num_onnx_inputs();
  if (onnx_inputs < 2) {
    ctx.Fail("expected at least 2 inputs (M, cond), got " + std::to_string(onnx_inputs));
  }
  if (ctx.has_input(0) && ctx.input(0).dtype != DType::kInt64) {
    ctx.Fail("M must be int64, got " + ctx.Describe(0));
  }
  if (ctx.has_input(1) && ctx.input(1).dtype != DType::kBool) {
    ctx.Fail("cond must be bool, got " + ctx.Describe(1));
  }
  const size_t carried = onnx_inputs - 2;
  std::vector<TensorType> input_types{kInt64Scalar, kBoolScalar};
  for (size_t i = 2; i < onnx_inputs; ++i) {
    if (!ctx.has_input(i)) ctx.Fail("loop-carried input " + std::to_string(i) + " is absent");
    input_types.push_back(ctx.input(i));
  }
  for (const TensorType& capture : CaptureTypes(ctx)) input_types.push_back(capture);
  std::shared_ptr<Graph> body =
      TypeLoopBody(ctx, "body", RequireSubgraph(ctx, "body"), input_types, 2, carried, 1);
  const TensorType& cond_out = body->outputs[0].type;
  if (cond_out.dtype != DType::kBool) {
    ctx.Fail("the body's first output (the condition) must be bool, got " + cond_out.to_string());
  }
  const size_t scan_outputs = body->outputs.size() - 1 - carried;
  if (ctx.num_outputs() != carried + scan_outputs) {
    ctx.Fail("the node has " + std::to_string(ctx.num_outputs()) + " outputs, the body gives " +
             std::to_string(carried) + " loop-carried values and " + std::to_string(scan_outputs) +
             " scan outputs");
  }
  ControlFlowTypes result;
  for (size_t i = 0; i < carried; ++i) {
    // What the body gives, unless the loop may not run (an optional in
    // that the body makes a plain value stays optional only then).
    TensorType type = body->inputs[2 + i].type;
    if (type.is_optional() && !body->outputs[1 + i].type.is_optional()) {
      type.kind = body->outputs[1 + i].type.kind;
    }
    result.outputs.push_back(type);
  }
  for (size_t k = 0; k < scan_outputs; ++k) {
    result.outputs.push_back(
        Stacked(ctx, body->outputs[1 + carried + k].type, ctx.UnknownDim(), 0));
  }
  result.subgraphs = {{"body", std::move(body)}};
  return result;
}

ControlFlowTypes InferScanTypes(const NodeTypeContext& ctx) {
  const size_t onnx_inputs = ctx.node().num_onnx_inputs();
  const int64_t scan_inputs = ctx.RequireInt("num_scan_inputs");
  if (scan_inputs < 1 || static_cast<size_t>(scan_inputs) > onnx_inputs) {
    ctx.Fail("num_scan_inputs is " + std::to_string(scan_inputs) + " but the node has " +
             std::to_string(onnx_inputs) + " inputs");
  }
  const size_t m = static_cast<size_t>(scan_inputs);
  const size_t states = onnx_inputs - m;
  const Graph& body = RequireSubgraph(ctx, "body");
  if (body.outputs.size() < states) {
    ctx.Fail("the body has " + std::to_string(body.outputs.size()) + " outputs, fewer than the " +
             std::to_string(states) + " states");
  }
  const size_t scan_outputs = body.outputs.size() - states;
  auto list = [&](const char* name, size_t count) {
    std::vector<int64_t> values = ctx.GetInts(name, std::vector<int64_t>(count, 0));
    if (values.size() != count) {
      ctx.Fail(std::string("attribute '") + name + "' has " + std::to_string(values.size()) +
               " values, expected " + std::to_string(count));
    }
    return values;
  };
  const std::vector<int64_t> input_axes = list("scan_input_axes", m);
  const std::vector<int64_t> input_directions = list("scan_input_directions", m);
  const std::vector<int64_t> output_axes = list("scan_output_axes", scan_outputs);
  const std::vector<int64_t> output_directions = list("scan_output_directions", scan_outputs);
  for (int64_t direction : input_directions) {
    if (direction != 0 && direction != 1) ctx.Fail("scan_input_directions must be 0 or 1");
  }
  for (int64_t direction : output_directions) {
    if (direction != 0 && direction != 1) ctx.Fail("scan_output_directions must be 0 or 1");
  }
  std::vector<TensorType> input_types;
  for (size_t i = 0; i < states; ++i) input_types.push_back(ctx.input(i));
  std::optional<Dim> length;
  for (size_t j = 0; j < m; ++j) {
    const TensorType& type = ctx.input(states + j);
    if (!type.is_tensor()) ctx.Fail("scan input " + ctx.Describe(states + j) + " is not a tensor");
    if (!type.shape) {
      input_types.push_back({type.dtype, std::nullopt});
      continue;
    }
    SymbolicShape slice = *type.shape;
    if (slice.empty()) ctx.Fail("scan input " + ctx.Describe(states + j) + " has rank 0");
    const int axis = ctx.NormalizeAxis(input_axes[j], static_cast<int>(slice.size()),
                                       "attribute 'scan_input_axes'");
    const Dim dim = slice[axis];
    if (length && length->is_known() && dim.is_known() && length->size() != dim.size()) {
      ctx.Fail("scan input " + ctx.Describe(states + j) + " has " + dim.to_string() +
               " iterations along axis " + std::to_string(axis) + ", another has " +
               length->to_string());
    }
    if (!length || (!length->is_known() && dim.is_known())) length = dim;
    slice.erase(slice.begin() + axis);
    input_types.push_back({type.dtype, slice});
  }
  for (const TensorType& capture : CaptureTypes(ctx)) input_types.push_back(capture);
  std::shared_ptr<Graph> typed_body = TypeLoopBody(ctx, "body", body, input_types, 0, states, 0);
  if (ctx.num_outputs() != states + scan_outputs) {
    ctx.Fail("the node has " + std::to_string(ctx.num_outputs()) + " outputs, the body gives " +
             std::to_string(states + scan_outputs));
  }
  ControlFlowTypes result;
  for (size_t i = 0; i < states; ++i) result.outputs.push_back(typed_body->inputs[i].type);
  const Dim scan_length = length ? *length : ctx.UnknownDim();
  for (size_t k = 0; k < scan_outputs; ++k) {
    result.outputs.push_back(
        Stacked(ctx, typed_body->outputs[states + k].type, scan_length, output_axes[k]));
  }
  result.subgraphs = {{"body", std::move(typed_body)}};
  return result;
}

}  // namespace

bool IsControlFlowOp(std::string_view op) { return op == "If" || op == "Loop" || op == "Scan"; }

bool HasSubgraphs(const Node& node) {
  return std::any_of(node.attributes.begin(), node.attributes.end(), [](const auto& entry) {
    return std::holds_alternative<GraphAttribute>(entry.second);
  });
}

std::vector<std::pair<std::string, GraphAttribute>> Subgraphs(const Node& node) {
  std::vector<std::pair<std::string, GraphAttribute>> subgraphs;
  for (const auto& [name, value] : node.attributes) {
    if (const auto* graph = std::get_if<GraphAttribute>(&value); graph && *graph) {
      subgraphs.emplace_back(name, *graph);
    }
  }
  return subgraphs;
}

ControlFlowTypes InferControlFlowTypes(const NodeTypeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  if (op == "If") return InferIfTypes(ctx);
  if (op == "Loop") return InferLoopTypes(ctx);
  if (op == "Scan") return InferScanTypes(ctx);
  if (op == "SequenceMap") return InferSequenceMapTypes(ctx);
  ctx.Fail("has subgraph attributes, which only If, Loop, Scan and SequenceMap take");
}

std::vector<TensorType> InferIf(const NodeTypeContext& ctx) { return InferIfTypes(ctx).outputs; }
std::vector<TensorType> InferLoop(const NodeTypeContext& ctx) {
  return InferLoopTypes(ctx).outputs;
}
std::vector<TensorType> InferScan(const NodeTypeContext& ctx) {
  return InferScanTypes(ctx).outputs;
}

SubgraphDepthGuard::SubgraphDepthGuard(const std::string& what) {
  if (subgraph_depth >= kMaxSubgraphDepth) {
    throw SubgraphDepthError(what + ": subgraphs are nested more than " +
                             std::to_string(kMaxSubgraphDepth) + " levels deep");
  }
  ++subgraph_depth;
}

SubgraphDepthGuard::~SubgraphDepthGuard() { --subgraph_depth; }

}  // namespace loom::graph
