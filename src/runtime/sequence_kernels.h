// The node kernels of ONNX's sequence and optional ops (graph/sequence_ops.h
// lists them and their types), and Identity on a sequence or an optional.
// They are value kernels (node_kernel.h): the registry stays tensor-only.
// Sequences move tensor handles; only SplitToSequence and
// ConcatFromSequence copy data (serially: a copy the size of the input,
// once per node run). New tensors come from the run's allocator, so
// sequence elements count in the run's memory accounting and cap.
//
//   SequenceAt(s, pos)          pos in [-n, n-1] (negative counts from the end)
//   SequenceInsert(s, t, pos?)  pos in [-n, n]; absent: at the end
//   SequenceErase(s, pos?)      pos in [-n, n-1]; absent: the last element
//   SplitToSequence(t, split?)  split absent: parts of 1 along axis (squeezed
//                               unless keepdims); a scalar: parts of that
//                               size, the last one smaller if need be; a
//                               1-D list: the parts' sizes, summing to the dim
//   ConcatFromSequence(s)       Concat of the elements along axis, or Stack
//                               (new_axis = 1); an empty sequence is an error
//   SequenceMap(s, extra...)    for (i = 0; i < len(s); ++i)
//                                 outputs[k].append(body(s[i], extra_i...)[k])
//                               where extra_i is an extra sequence's element
//                               i (same length as s) or an extra tensor;
//                               on the node's thread (subgraph_runner.h)
//   Optional(x?)                x, or an empty optional
//   OptionalHasElement(o?)      false for an empty optional or absent input
//   OptionalGetElement(o)       what o holds; an empty optional is an error
//
// Errors (InvalidArgumentError; the executor prefixes the node): positions
// out of range, a tensor of another dtype, elements whose shapes do not
// concatenate, split sizes that do not fit, an empty optional read.
#pragma once

#include <memory>

#include "kernels/isa.h"
#include "loom/graph.h"
#include "runtime/node_kernel.h"

namespace loom::runtime {

// `node` is a sequence op (graph::IsSequenceOp) or an Identity; SequenceMap
// is typed (the session's graph after OptimizeGraph). Throws
// InvalidArgumentError when its body cannot be prepared.
std::unique_ptr<NodeKernel> MakeSequenceKernel(const Node& node, kernels::Isa isa);

}  // namespace loom::runtime
