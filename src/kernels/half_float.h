// float16 and bfloat16 are storage types in Loom: a kernel that accepts
// them widens its inputs to float32 (exact), computes there, and rounds
// each result back once (to nearest even). These helpers are that step.
//
// Thread safety: pure functions.
#pragma once

#include "loom/tensor.h"

namespace loom::kernels {

// float16 or bfloat16.
inline bool ComputesInFloat32(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16;
}

// A float32 copy of a float16 or bfloat16 tensor (exact); any other tensor
// is returned as is.
Tensor WidenToFloat32(const Tensor& tensor);

// A float16 or bfloat16 (`dtype`) copy of a float32 tensor, each element
// rounded to nearest even. `tensor` itself when `dtype` is float32.
Tensor NarrowFromFloat32(const Tensor& tensor, DType dtype);

}  // namespace loom::kernels
