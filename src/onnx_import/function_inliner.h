// Model-local functions (ModelProto.functions, IR 8+): every node of the
// main graph that calls one is replaced by the function's body, so the rest
// of the importer sees only operators.
//
// A node calls a function when (domain, op_type, overload) equals the
// function's (domain, name, overload); "" and "ai.onnx" are one domain. A
// local function wins over a standard op of the same name (ONNX leaves the
// choice to runtimes; the model's author defined it for this model).
//
// Per call:
//   - formal inputs and outputs are bound to the node's actual names; a
//     formal input the node leaves out (or passes as "") becomes "" wherever
//     the body reads it; a formal output the node leaves out gets a fresh
//     name and stays unused;
//   - every other value and every node of the body gets a fresh name,
//     "<caller>/<name>" (the caller's node name, or the function's name for
//     an unnamed caller), with "_<k>" added where the graph already uses it;
//   - an attribute reference (AttributeProto.ref_attr_name) takes the
//     caller's attribute of that name, else the function's default
//     (FunctionProto.attribute_proto), else the attribute is dropped and the
//     op's own default applies;
//   - a body node that calls a function is inlined in turn.
// Function value_info, metadata and nodes inside subgraph attributes (GRAPH,
// which Loom refuses later) are left as they are.
//
// Every error is a loom::InvalidArgumentError without the model's path (the
// loader adds it). Thread safety: pure functions over their arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "loom_onnx/onnx.pb.h"

namespace loom::onnx_import {

// Most nodes all inlining may add to a graph; a model past it (say 30
// functions each calling the previous one twice: 2^30 nodes) is refused
// before anything is copied. The largest exported transformers have ~10^5.
inline constexpr size_t kMaxInlinedNodes = 1'000'000;

// Most entries (node inputs, outputs and attributes; formal inputs, outputs
// and attribute defaults, once per call) all inlining may copy or bind: a
// function with a million formal inputs called a million times adds no
// nodes but would take hours. Sixteen per node at the node limit; real
// nodes have a handful.
inline constexpr size_t kMaxInlinedFields = 16'000'000;

// Deepest chain of function calls (F calls G calls H ...). Exported module
// hierarchies nest a few dozen deep at most; 100 is protobuf's own recursion
// limit, and bounds the inliner's recursion.
inline constexpr int kMaxFunctionNesting = 100;

// A function that InlineFunctions inlined, for the opset checks that follow.
struct InlinedFunction {
  std::string label;                     // "custom::Gelu", "custom::Gelu:overload"
  std::optional<int64_t> default_opset;  // its own import of the default domain
  // The op types of the body's default-domain nodes that are not function
  // calls, each once, in order of first use.
  std::vector<std::string> default_domain_ops;
};

// Replaces, in model.graph(), every node that calls a model-local function by
// the function's body, recursively. Returns the functions called, each once,
// in order of first call (empty, and the graph untouched, when no node calls
// one). Throws on: two functions with the same (domain, name, overload); a
// function that calls itself, directly or not; calls nested deeper than
// kMaxFunctionNesting; more than kMaxInlinedNodes nodes to add or
// kMaxInlinedFields entries to copy; a call with more inputs or outputs than
// the function declares; a body that reads a value that is neither a formal
// input nor produced in the body, or leaves a formal output unproduced. The
// limits are checked before the graph is changed; after an error about a
// malformed body the graph may be partly inlined (the loader discards it).
std::vector<InlinedFunction> InlineFunctions(onnx::ModelProto& model);

// Throws unless each function's body means the same at its own
// default-domain opset as at the model's `opset` (see the .cc).
void CheckFunctionOpsets(std::span<const InlinedFunction> functions, int opset);

}  // namespace loom::onnx_import
