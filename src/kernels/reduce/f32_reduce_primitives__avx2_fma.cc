// float32 reduction primitives compiled for AVX2 + FMA (the portable
// template source, vectorized 8 wide by the compiler).
#include "kernels/reduce/reduce_primitives_impl.h"

namespace loom::kernels {

const ReducePrimitives<float>& F32ReducePrimitives__avx2_fma() { return kPrimitives<float>; }

}  // namespace loom::kernels
