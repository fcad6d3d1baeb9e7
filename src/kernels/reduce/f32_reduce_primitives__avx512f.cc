// float32 reduction primitives compiled for AVX-512F (the portable template
// source, vectorized 16 wide by the compiler).
#include "kernels/reduce/reduce_primitives_impl.h"

namespace loom::kernels {

const ReducePrimitives<float>& F32ReducePrimitives__avx512f() { return kPrimitives<float>; }

}  // namespace loom::kernels
