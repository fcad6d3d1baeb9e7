// What the rewriting passes share: an index of who produces and who consumes
// each value, the constants a pass may read, fresh names, and the clean-up
// after nodes are erased.
//
// A GraphIndex is a snapshot of the node list: a pass builds one, finds its
// matches, rewrites them (changing node contents, appending nothing) and
// erases the nodes it replaced at the end with EraseNodes. Matches a pass
// rewrites in one sweep must not overlap; each pass's comment says why
// its own do not.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

class GraphIndex {
 public:
  explicit GraphIndex(const Graph& graph);

  // The index of the node that outputs `value`; nullopt for graph inputs,
  // initializers and "".
  std::optional<size_t> producer(const std::string& value) const;
  // The nodes reading `value`, once per input slot (a node reading it twice
  // appears twice), in node order.
  const std::vector<size_t>& consumers(const std::string& value) const;
  bool is_graph_output(const std::string& value) const { return graph_outputs_.count(value) > 0; }
  // True when `value` has exactly one consumer slot and is not fetched: the
  // condition for fusing its producer into that consumer.
  bool has_single_private_use(const std::string& value) const;

 private:
  std::unordered_map<std::string, size_t> producer_;
  std::unordered_map<std::string, std::vector<size_t>> consumers_;
  std::set<std::string> graph_outputs_;
};

// The initializer named `value` when it is a true constant, else null. An
// initializer that is also a graph input only gives the input a default a
// caller may override, so it is not constant.
const Tensor* FindConstant(const Graph& graph, const std::string& value);

// The axes a Reduce* node reduces, as written: its constant int64 second
// input (opset 18 ReduceMean and later) or its "axes" attribute; empty when
// it has neither (all axes, or none with noop_with_empty_axes); nullopt when
// the input is not a constant 1-D int64 tensor or both forms are present.
std::optional<std::vector<int64_t>> ReduceAxes(const Graph& graph, const Node& node);

// What is known of `value`'s type: an initializer's, a graph input's
// declared one, or the one a prior InferTypes found; nullopt otherwise.
std::optional<TensorType> KnownType(const Graph& graph, const std::string& value);

// "node 'conv_1' (Conv)", the prefix of every error about a node.
std::string NodeLabel(const Node& node);

// Hands out value and node names no one in the graph uses yet.
class NameGenerator {
 public:
  explicit NameGenerator(const Graph& graph);
  // `base` itself when free, else "<base>_1", "<base>_2", ...; the name is
  // taken by the call.
  std::string Fresh(const std::string& base);

 private:
  std::set<std::string> taken_;
};

// An inference BatchNormalization as y = x * a[c] + shift[c] per channel
// (shift = bias - mean * a, a = scale / sqrt(var + epsilon), in double).
struct ChannelAffine {
  std::vector<double> a;
  std::vector<double> shift;
};

// The affine map of `bn` when it is an inference BatchNormalization with
// constant float32 [C] parameters and a single output; nullopt otherwise.
std::optional<ChannelAffine> ReadBatchNormalization(const Graph& graph, const Node& bn);

// Erases nodes whose flag is set (erase.size() == graph.nodes.size()).
void EraseNodes(Graph& graph, const std::vector<bool>& erase);

// Removes the initializers among `candidates` that no node reads and that are
// neither graph inputs nor graph outputs.
void RemoveUnusedInitializers(Graph& graph, const std::vector<std::string>& candidates);

// Drops value_types entries of values no node produces any more (folded into
// initializers or fused away): type inference fills them for node outputs
// only.
void DropStaleValueTypes(Graph& graph);

}  // namespace loom::graph
