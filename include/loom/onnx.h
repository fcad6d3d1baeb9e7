// Loading ONNX models into Loom graphs.
//
//   loom::Graph graph = loom::load_onnx_model("resnet18.onnx");
//   loom::Session session(std::move(graph));
//
// Parsed with protobuf classes generated from the pinned onnx package's
// schema. Opsets 1 to 24 of the default domain: each node's operator version
// at the model's opset must be one Loom reads (every version from opset 7 on
// of every op it has a kernel for); older versions (ReduceX's axes
// attribute, Squeeze/Unsqueeze axes, Split sizes, pre-13 Softmax, legacy
// broadcasting, Resize-10/Upsample, Dropout, ...) are rewritten to the forms
// Loom's kernels implement (src/onnx_import/README.md has the rules). Initializers and Constant
// nodes become constants; an initializer also listed as a graph input stays an overridable input
// with a default (IR version 4 and later; before that, every initializer was listed as an input and
// stays a constant). Dimensions with a dim_param become symbols bound at run time; dimensions with
// neither value nor name get a fresh symbol. Empty or duplicated node names are replaced by
// "<op>_<index>". Model-local functions (ModelProto.functions) are inlined first: each call becomes
// the function's nodes, named "<calling node>/<name>" (src/onnx_import/README.md).
//
// External data (tensors stored beside the model) is read only from files
// inside the model's own folder: absolute paths, "..", symbolic links that
// leave the folder, non-regular files and offsets or lengths outside the file
// are refused.
//
// Errors (loom::InvalidArgumentError, message starting with the model's path
// or label; loom::RuntimeError only if memory runs out):
//  - a missing, unreadable, empty, truncated or corrupted file, or one over
//    protobuf's 2 GiB limit;
//  - an IR version below 3 (or missing);
//  - an opset outside 1..24, or no default-domain opset; an op version Loom
//    does not read (named with the version and what differs);
//  - unsupported ops (including any op from another domain): ONE error
//    listing every unsupported op type with the nodes that use it;
//  - tensors or values of unsupported element types (string, complex, ...),
//    sequences, maps, optionals (control flow's subgraphs included: If,
//    Loop and Scan from opset 9 run with tensors only); subgraphs nested
//    more than 32 deep, or reading a name no enclosing graph defines;
//  - functions that call themselves, nest more than 100 calls deep or
//    would inline more than 1,000,000 nodes; a function whose opset gives
//    its ops other definitions than the model's;
//  - anything loom::verify_graph rejects (types, shapes, structure).
// Nothing in a malformed file can crash or hang the loader.
//
// Thread safety: both functions may be called concurrently.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "loom/graph.h"

namespace loom {

// What a model says about itself (ModelProto's and GraphProto's descriptive
// fields), as ONNX Runtime's ModelMetadata shows it. Empty when absent.
struct OnnxModelMetadata {
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::string graph_name;
  std::string graph_doc_string;
  std::map<std::string, std::string> metadata_props;  // ModelProto.metadata_props
};

// Reads and converts the model at `path`; fills `metadata` when given.
Graph load_onnx_model(const std::string& path, OnnxModelMetadata* metadata = nullptr);

// Converts a serialized ModelProto. External data is looked up in
// `model_dir` (empty: a model with external data is refused); `label` names
// the model in error messages.
Graph load_onnx_model_from_bytes(std::string_view bytes, const std::string& model_dir = "",
                                 const std::string& label = "<memory>",
                                 OnnxModelMetadata* metadata = nullptr);

// Writes `graph` as an ONNX model: IR version 12, the default domain at
// opset 24 (the forms the importer reads every older opset into), inputs,
// outputs and the intermediate types shape inference found, initializers
// inside the file. A node ONNX does not define as it stands — an op ONNX
// lacks (the optimizer's FusedMatMul, Nchwc*, LoomAttention, ...) or an ONNX
// op with attributes ONNX's op never had (a Conv with a fused activation) —
// is written in the domain "ai.loom" (version 1), which load_onnx_model
// reads back; other ONNX tools see those as custom ops, as they do ONNX
// Runtime's optimized models. A graph made only of ONNX nodes (optimization
// level 0 or 1, or any graph built from ONNX ops) loads in any runtime.
//
// Throws loom::InvalidArgumentError when the model would exceed protobuf's
// 2 GiB, and when the file cannot be written (naming the path and the
// reason). Thread safety: may be called concurrently.
std::string save_onnx_model_to_bytes(const Graph& graph);
void save_onnx_model(const Graph& graph, const std::string& path);

}  // namespace loom
