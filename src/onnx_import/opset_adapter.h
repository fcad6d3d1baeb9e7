// Reads every version of an operator that a model may use as the form Loom's
// kernels implement (ONNX's newest, see src/kernels/README.md).
//
// A node of a model at opset N follows its op's newest definition whose
// since_version is <= N (onnx_op_versions.h). The version rules below say,
// per op and range of since_versions, what Loom does with it:
//
//   - nothing: the kernels read that version as it is. Each such row says
//     what changed between it and the newest and why it does not matter
//     (most changes only add element types; attributes added later have
//     defaults that give the older behaviour);
//   - a rewrite: the node is changed into the newest form (attribute →
//     input, the pre-13 Softmax coercion, Dropout → Identity, ...). A rewrite
//     may refuse a node whose attributes select semantics Loom lacks (e.g.
//     BatchNormalization-7 with spatial = 0);
//   - refused: an error naming the op, the version and what differs.
//
// A version no row covers is refused too. A test checks that every
// version of every ONNX op in the kernel registry in effect from opset 7 to
// the newest has exactly one row, so a new onnx pin whose schemas change an
// op fails the tests until someone decides what the change means here.
//
// Pre-13 Softmax (and LogSoftmax, Hardmax) flattens its input to 2-D at
// `axis` (default 1) and normalizes each row: Flatten(axis) →
// Softmax(axis=1) → Reshape back to
// the input's shape (a Shape node, so dynamic shapes keep working). When
// the axis is the last one — axis = -1, or rank - 1 for a known rank — the
// two forms agree and the node keeps a single axis of -1.
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

// Opsets the importer reads. Below 7 the elementwise ops still had the
// legacy `broadcast` attribute and most ops other forms; a model stamped
// with an older opset loads when each op it uses has a version rule (the
// versions of Relu or Conv at opset 1-6 are the ones in effect at 7).
inline constexpr int kMinOpset = 1;

struct OpVersionRule {
  std::string_view op;
  int first;  // the since_versions this row covers: first <= v <= last
  int last;
  // Changes the node into the newest form; nullptr: read as it is.
  void (*rewrite)(OpsetAdapter& adapter, size_t node_index);
  // What differs from the newest definition, and why the rewrite (or none)
  // is right; for a refused row, the reason in the error.
  std::string_view difference;
  bool refused = false;
};

// The version rules, sorted by op.
std::span<const OpVersionRule> OpVersionRules();

// The rule for `op` at since_version `version`, or nullptr.
const OpVersionRule* FindVersionRule(std::string_view op, int version);

// Whether the adapter replaces `op` by others (Dropout → Identity, ...), so
// it needs no kernel of its own.
bool AdapterReplacesOp(std::string_view op);

// Throws loom::InvalidArgumentError unless every default-domain op in
// `op_types` has a rule for its version at `opset` that is not refused; the
// message names each op, its version and the reason.
void CheckOpVersions(const std::vector<std::string>& op_types, int opset);

// Rewrites `graph` (imported at `opset`) in place. `declared_ranks` (value →
// rank, from the model's ValueInfos) lets Softmax skip the coercion when it
// is a no-op.
void AdaptToLatestOpset(Graph& graph, int opset, const std::map<std::string, int>& declared_ranks);

// What a rewrite may do to the graph. Rewrites append nodes and
// initializers; node order does not matter (the verifier sorts).
class OpsetAdapter {
 public:
  OpsetAdapter(Graph& graph, int opset, const std::map<std::string, int>& declared_ranks);

  // The model's default-domain opset.
  int opset() const { return opset_; }

  Node& node(size_t index) { return graph_.nodes[index]; }
  // Appends a node; the reference from node() may dangle afterwards.
  void AddNode(Node node);
  // A value or node name not yet used in the graph, derived from `base`.
  std::string FreshValueName(const std::string& base);
  std::string FreshNodeName(const std::string& base);
  // Adds an int64 1-D initializer and returns its name.
  std::string AddInt64Constant(const std::string& base, const std::vector<int64_t>& values);
  // Adds an initializer and returns its name.
  std::string AddConstant(const std::string& base, Tensor value);
  // Whether `value` is an initializer (a constant).
  const Tensor* Constant(const std::string& value) const;
  // The declared rank of `value`, or -1.
  int DeclaredRank(const std::string& value) const;

 private:
  Graph& graph_;
  int opset_;
  const std::map<std::string, int>& declared_ranks_;
  std::set<std::string> values_;
  std::set<std::string> node_names_;
};

}  // namespace loom::onnx_import
