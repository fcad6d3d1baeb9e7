// The bridge from a node's public attributes (loom::Attributes, a plain map
// of variants) to the kernels' checked Attributes. Both hold the same seven
// kinds, so the conversion copies each value unchanged.
//
// Used by whoever runs a graph's kernels: the runtime's evaluator and
// executor, and the passes' test interpreter.
#pragma once

#include "kernels/attributes.h"
#include "loom/attributes.h"

namespace loom::graph {

// Copies every attribute; tensors are shared handles, so no data is copied.
kernels::Attributes ToKernelAttributes(const Attributes& attributes);

// The reverse, for passes that let a kernel helper write attributes
// (kernels::SetFusedActivationAttributes) and store them on a node.
Attributes FromKernelAttributes(const kernels::Attributes& attributes);

}  // namespace loom::graph
