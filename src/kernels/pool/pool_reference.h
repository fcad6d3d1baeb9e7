// Plain reference pooling: the test oracle for pool.h. One output element
// at a time, every window position visited in row-major order with explicit
// bounds checks, arithmetic in double. Same contract as pool.h (semantics,
// dtypes, Indices, NaN and empty-window rules); geometry comes from
// ResolveSpatialGeometry, which has its own tests. Argument errors are
// left to the kernels: call these only with valid inputs.
//
// Thread safety: stateless; concurrent calls are safe.
#pragma once

#include <vector>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom::kernels {

// {Y, Indices}.
std::vector<Tensor> MaxPoolReference(const Attributes& attrs, const Tensor& x);
Tensor AveragePoolReference(const Attributes& attrs, const Tensor& x);
Tensor GlobalMaxPoolReference(const Tensor& x);
Tensor GlobalAveragePoolReference(const Tensor& x);

}  // namespace loom::kernels
