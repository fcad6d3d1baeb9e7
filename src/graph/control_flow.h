// Control flow in the IR: If, Loop and Scan, the ops that carry subgraphs
// ("graph" attributes, loom/graph.h explains captures as implicit inputs).
//
// Type inference types a subgraph from the node's inputs: each subgraph is
// copied, its inputs given the types the op says (If's branches: the
// captures; Loop's body: int64 iteration number, bool condition, the
// loop-carried values, the captures; Scan's body: the states, one slice of
// each scan input, the captures), checked (VerifyStructure) and typed
// (InferTypes), recursively. The typed copies replace the node's subgraphs
// (InferTypes writes them back), so the runtime finds every subgraph value
// typed: a Loop that runs zero times takes its scan outputs' dtype and shape
// from its body's types.
//
// If: a branch that cannot be typed for the node's inputs is kept with only
// its input types when the other branch types (it may never be taken, as in
// ONNX's expanded AffineGrid); taking it fails in its kernels at run time.
//
// Loop-carried values and Scan states may change shape from one iteration to
// the next (a body that concatenates): a dimension where the body's output
// differs from its input becomes unknown and the body is typed again (at most
// three times; then the rank is unknown too).
//
// Errors: InvalidArgumentError naming the node ("graph 'g': node 'loop'
// (Loop): ..."), for a subgraph whose input or output counts do not fit the
// op, outputs whose dtypes differ between If's branches or between a Loop
// body's input and output, mismatched scan lengths, and subgraphs nested
// more than kMaxSubgraphDepth deep.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/type_rules.h"
#include "loom/errors.h"
#include "loom/graph.h"

namespace loom::graph {

// Subgraphs inside subgraphs: deeper nesting is refused (import, type
// inference and session creation all recurse once per level).
inline constexpr int kMaxSubgraphDepth = 32;

// If, Loop or Scan.
bool IsControlFlowOp(std::string_view op);

// Whether `node` has any "graph" attribute.
bool HasSubgraphs(const Node& node);

// The node's subgraphs with their attribute names, in attribute-name order.
std::vector<std::pair<std::string, GraphAttribute>> Subgraphs(const Node& node);

// The types of a control-flow node's outputs and its subgraphs typed for
// its inputs (to replace the node's attributes of the same names).
struct ControlFlowTypes {
  std::vector<TensorType> outputs;
  std::vector<std::pair<std::string, GraphAttribute>> subgraphs;
};
ControlFlowTypes InferControlFlowTypes(const NodeTypeContext& ctx);

// The graph attribute `name` of the node; Fail()s when it is absent or not a
// graph.
const Graph& RequireSubgraph(const NodeTypeContext& ctx, const std::string& name);

// A copy of `body` whose inputs have `input_types`, checked and typed;
// Fail()s naming subgraph `attribute` when it does not type.
std::shared_ptr<Graph> TypeSubgraph(const NodeTypeContext& ctx, const std::string& attribute,
                                    const Graph& body, const std::vector<TensorType>& input_types);

// The rules of the type-rule table (their subgraphs' types are dropped).
std::vector<TensorType> InferIf(const NodeTypeContext& ctx);
std::vector<TensorType> InferLoop(const NodeTypeContext& ctx);
std::vector<TensorType> InferScan(const NodeTypeContext& ctx);

// What SubgraphDepthGuard throws: never taken for a branch that merely
// does not type (If's leniency above), so the limit also bounds the work.
class SubgraphDepthError : public InvalidArgumentError {
 public:
  using InvalidArgumentError::InvalidArgumentError;
};

// Counts the nesting of subgraph work on this thread (type inference,
// optimization, session preparation): throws SubgraphDepthError naming
// `what` past kMaxSubgraphDepth.
class SubgraphDepthGuard {
 public:
  explicit SubgraphDepthGuard(const std::string& what);
  ~SubgraphDepthGuard();
  SubgraphDepthGuard(const SubgraphDepthGuard&) = delete;
  SubgraphDepthGuard& operator=(const SubgraphDepthGuard&) = delete;
};

}  // namespace loom::graph
