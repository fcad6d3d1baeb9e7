// The plain reference for every kernel in kernels/elementwise.h (the test
// oracle). For each output element it recomputes the multi-index and each
// input's broadcast offset, and evaluates the op in double for float dtypes
// (then rounds once to the output dtype) or in int64 with wrap-around for
// integer dtypes (then truncates to the output width, which wraps the same
// way). No vector code, no threads, no shortcuts.
//
//   Tensor y = ElementwiseReference("Add", {}, {&a, &b});
//
// `op` is the ONNX op name ("Add", "LessOrEqual", "Gelu", ...; "Silu" too).
// Inputs are checked only as far as the computation needs; integer division
// by zero throws loom::InvalidArgumentError.
#pragma once

#include <initializer_list>
#include <string_view>

#include "kernels/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

Tensor ElementwiseReference(std::string_view op, const Attributes& attrs,
                            std::initializer_list<const Tensor*> inputs);

}  // namespace loom::kernels
