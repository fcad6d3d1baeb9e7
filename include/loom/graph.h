// Dataflow graphs: the IR that sessions optimize and run.
//
// A Graph is plain data, close to ONNX's GraphProto: nodes (an op type,
// attributes, named inputs and outputs), graph inputs and outputs with a
// dtype and a possibly symbolic shape, and constant initializers. Values are
// named by strings; every value is defined exactly once (by a graph input,
// an initializer or one node output). Node order does not matter — the
// verifier sorts — so passes may append and erase freely.
//
// GraphBuilder writes graphs in code:
//
//   loom::GraphBuilder b("tiny");
//   auto x = b.input("x", loom::DType::kFloat32, {"N", 3, 32, 32});
//   auto w = b.constant(weights);                       // an initializer
//   auto y = b.op("Conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
//   b.output(b.op("Relu", {y}), "features");
//   loom::Graph g = b.build();                          // verified
//
// Thread safety: a Graph is a value; concurrent reads are safe, writes are
// the caller's to serialize.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom {

// One dimension of a shape: a known size, or a symbol ("N") bound when the
// graph runs. The same symbol means the same size everywhere in a graph.
//
// A symbol is either the model's ("N", "batch") or invented by Loom for a size
// the model leaves unnamed (the importer's "unk__3", type inference's
// "?node.0"): is_invented() tells them apart, so a caller shows an invented
// one as unnamed (ONNX Runtime's None) without knowing any naming scheme.
// Invented symbols are unique in a graph, so equality compares the symbol
// alone.
class Dim {
 public:
  Dim(int64_t size) : size_(size) {}  // NOLINT: implicit, so {1, 3, 8, 8} reads naturally
  Dim(int size) : size_(size) {}      // NOLINT
  Dim(std::string symbol) : size_(-1), symbol_(std::move(symbol)) {}  // NOLINT
  Dim(const char* symbol) : Dim(std::string(symbol)) {}               // NOLINT

  // A symbol Loom made up for a size the model does not name.
  static Dim Invented(std::string symbol) {
    Dim dim(std::move(symbol));
    dim.invented_ = true;
    return dim;
  }

  bool is_known() const { return symbol_.empty(); }
  bool is_invented() const { return invented_; }
  int64_t size() const { return size_; }  // -1 when symbolic
  const std::string& symbol() const { return symbol_; }
  std::string to_string() const;  // "8" or "N"

  friend bool operator==(const Dim& a, const Dim& b) {
    return a.size_ == b.size_ && a.symbol_ == b.symbol_;
  }

 private:
  int64_t size_;
  std::string symbol_;
  bool invented_ = false;
};

using SymbolicShape = std::vector<Dim>;

// "[N, 3, 224, 224]".
std::string shape_to_string(const SymbolicShape& shape);

// What a value is (ONNX's TypeProto kinds Loom runs): a tensor, a sequence
// of tensors, or an optional holding a tensor or a sequence.
enum class ValueKind {
  kTensor,
  kSequence,          // a list of tensors of one dtype (shapes may differ)
  kOptionalTensor,    // empty, or one tensor
  kOptionalSequence,  // empty, or one sequence
};

// What is known about a value: its kind, its dtype, and its shape when the
// rank is known (nullopt = unknown rank). For a sequence, dtype and shape
// describe every element (the shape is what the elements share); for an
// optional, the tensor or sequence it may hold. A kind left at its default
// keeps every tensor-only use unchanged.
struct TensorType {
  DType dtype = DType::kFloat32;
  std::optional<SymbolicShape> shape;
  ValueKind kind = ValueKind::kTensor;

  bool is_tensor() const { return kind == ValueKind::kTensor; }
  bool is_optional() const {
    return kind == ValueKind::kOptionalTensor || kind == ValueKind::kOptionalSequence;
  }
  // A sequence, or an optional holding one.
  bool holds_sequence() const {
    return kind == ValueKind::kSequence || kind == ValueKind::kOptionalSequence;
  }
  // The type an optional holds (a tensor or a sequence); itself otherwise.
  TensorType element_of_optional() const;
  // The type of one element of a sequence (a tensor type).
  TensorType element_of_sequence() const { return TensorType{dtype, shape}; }

  // "float32[N, 3]", "float32[?]", "seq(float32[?])", "optional(float32[2])",
  // "optional(seq(int64[?]))".
  std::string to_string() const;
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

// Type constructors: SequenceType(float32[?]) is seq(float32[?]), ...
TensorType SequenceType(const TensorType& element);
TensorType OptionalType(const TensorType& held);  // held: a tensor or a sequence

struct ValueInfo {
  std::string name;
  TensorType type;
};

// Control flow (If, Loop, Scan) keeps its subgraphs as "graph" attributes.
// A subgraph is a complete graph of its own: the values it reads from the
// enclosing graphs (ONNX's outer-scope references) are its trailing inputs,
// and the node passes them in as its trailing `implicit_inputs` inputs, in
// the same order (every subgraph of the node gets all of them). So every
// analysis of the outer graph (order, liveness, dead nodes, rewrites that
// rename a value) sees the dependency as an ordinary input, and a subgraph
// binds its captures by position, never by name.
struct Node {
  std::string name;                  // unique within the graph
  std::string op_type;               // the ONNX op type ("Conv")
  std::vector<std::string> inputs;   // value names; "" = an absent optional input
  std::vector<std::string> outputs;  // value names, each defined here only
  Attributes attributes;
  // How many of `inputs`, at the end, are subgraph captures rather than the
  // op's ONNX inputs (0 for nodes without subgraphs).
  int implicit_inputs = 0;

  // The op's own inputs: inputs.size() - implicit_inputs.
  size_t num_onnx_inputs() const { return inputs.size() - static_cast<size_t>(implicit_inputs); }
};

struct Graph {
  std::string name = "graph";
  std::vector<ValueInfo> inputs;               // fed at run time
  std::vector<ValueInfo> outputs;              // fetched by default; a type may be a guess
                                               // until shape inference fills it in
  std::map<std::string, Tensor> initializers;  // constants
  std::vector<Node> nodes;
  // Types of intermediate values, filled by shape inference.
  std::map<std::string, TensorType> value_types;

  // The node named `name`, or null.
  const Node* find_node(const std::string& name) const;
  // The node whose outputs include `value`, or null (inputs, initializers).
  const Node* producer_of(const std::string& value) const;

  // A stable, readable listing (one node per line, in topological order when
  // the graph has no cycle): what tests compare before and after a pass.
  std::string to_string() const;
};

// Checks that `graph` is well formed and throws loom::InvalidArgumentError
// for the first problem, naming the graph and the node:
//  - empty, duplicated or reserved names; values defined twice;
//  - inputs that nothing defines; graph outputs that nothing defines;
//  - cycles (naming a node on the cycle);
//  - op types with no kernel — all of them at once, each with its nodes;
//  - dtypes and shapes that do not fit an op (through type inference).
// Returns the node indices in a topological order (ties kept in node order).
std::vector<size_t> verify_graph(const Graph& graph);

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name = "graph");

  // Declares a graph input and returns its value name.
  std::string input(std::string name, DType dtype, SymbolicShape shape);

  // Adds an initializer; an empty name gets a fresh one ("const_3").
  std::string constant(Tensor value, std::string name = "");

  // Adds a node with one output and returns the output's name. An empty node
  // name gets a fresh one ("Conv_2"); the output is named after the node.
  std::string op(const std::string& op_type, std::vector<std::string> inputs,
                 Attributes attributes = {}, std::string name = "");

  // Adds a node with `num_outputs` outputs ("<node>:0", "<node>:1", ...).
  std::vector<std::string> op_multi(const std::string& op_type, std::vector<std::string> inputs,
                                    int num_outputs, Attributes attributes = {},
                                    std::string name = "");

  // Marks `value` as a graph output, renaming it to `name` when given (an
  // Identity-free rename: the producing node's output is renamed).
  void output(const std::string& value, std::string name = "");

  // Verifies (verify_graph) and returns the graph. The builder is left empty.
  Graph build();

 private:
  std::string FreshNodeName(const std::string& op_type);

  Graph graph_;
  int next_id_ = 0;
};

}  // namespace loom
