// Rewrites older operator forms to the ones Loom's kernels implement (ONNX's
// newest form of each op, see src/kernels/README.md).
//
// One table, one small function per rewrite:
//
//   op                     applies at opset   rewrite
//   ReduceSum              < 13               attribute axes → int64 input 1
//   ReduceMean/Max/Min/Prod/L1/L2/         all (attribute until opset 18)
//     LogSumExp/SumSquare                     attribute axes → int64 input 1
//   Squeeze, Unsqueeze     < 13               attribute axes → int64 input 1
//   Split                  < 13               attribute split → int64 input 1
//   Split                  all                no sizes at all (equal parts)
//                                             → attribute num_outputs
//   Softmax, LogSoftmax    < 13               2-D coercion (below)
//
// Pre-13 Softmax flattens its input to 2-D at `axis` (default 1) and
// normalizes each row: Flatten(axis) → Softmax(axis=1) → Reshape back to
// the input's shape (a Shape node, so dynamic shapes keep working). When
// the axis is the last one — axis = -1, or rank - 1 for a known rank — the
// two forms agree and the node keeps a single axis of -1.
//
// The kernels still read the attribute forms of axes/split, so most rewrites
// change representation, not results; they give every later pass one form
// to match, and they are tested by running both opsets.
#pragma once

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/graph.h"

namespace loom::onnx_import {

class OpsetAdapter;

struct OpsetRewrite {
  std::string_view op;
  int below_opset;  // applies when the model's opset is lower than this
  void (*rewrite)(OpsetAdapter& adapter, size_t node_index);
};

// The rewrite table above, in order.
std::span<const OpsetRewrite> OpsetRewrites();

// Rewrites `graph` in place. `declared_ranks` (value → rank, from the
// model's ValueInfos) lets Softmax skip the coercion when it is a no-op.
void AdaptToLatestOpset(Graph& graph, int opset, const std::map<std::string, int>& declared_ranks);

// What a rewrite may do to the graph. Rewrites append nodes and
// initializers; node order does not matter (the verifier sorts).
class OpsetAdapter {
 public:
  OpsetAdapter(Graph& graph, const std::map<std::string, int>& declared_ranks);

  Node& node(size_t index) { return graph_.nodes[index]; }
  // Appends a node; the reference from node() may dangle afterwards.
  void AddNode(Node node);
  // A value or node name not yet used in the graph, derived from `base`.
  std::string FreshValueName(const std::string& base);
  std::string FreshNodeName(const std::string& base);
  // Adds an int64 1-D initializer and returns its name.
  std::string AddInt64Constant(const std::string& base, const std::vector<int64_t>& values);
  // The declared rank of `value`, or -1.
  int DeclaredRank(const std::string& value) const;

 private:
  Graph& graph_;
  const std::map<std::string, int>& declared_ranks_;
  std::set<std::string> values_;
  std::set<std::string> node_names_;
};

}  // namespace loom::onnx_import
