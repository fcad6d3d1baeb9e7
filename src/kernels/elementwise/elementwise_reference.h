// The plain reference for every kernel in kernels/elementwise/elementwise.h (the test
// oracle). For each output element it recomputes the multi-index and each
// input's broadcast offset, and evaluates the op in double for float dtypes
// (then rounds to the output dtype; float16 and bfloat16 through float32, as
// the kernels round) or in int64 with wrap-around for integer dtypes (then
// truncates to the output width, which wraps the same way; uint64 in uint64,
// so values past int64's max compare and divide as unsigned). No vector
// code, no threads, no shortcuts.
//
//   Tensor y = ElementwiseReference("Add", {}, {&a, &b});
//
// `op` is the ONNX op name ("Add", "LessOrEqual", "Gelu", ...; "Silu" too).
// Inputs are checked only as far as the computation needs; integer division
// by zero throws loom::InvalidArgumentError.
#pragma once

#include <initializer_list>
#include <string_view>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

Tensor ElementwiseReference(std::string_view op, const Attributes& attrs,
                            std::initializer_list<const Tensor*> inputs);

}  // namespace loom::kernels
