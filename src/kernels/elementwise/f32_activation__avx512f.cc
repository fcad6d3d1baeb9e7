// Float32 activations and exp / log / erf / floor / ceil with AVX-512F,
// sixteen lanes at a time: x86/vector_math_impl.h (where the approximations
// and their errors are listed) on x86/vector_ops__avx512f.h: the AVX2
// results bit for bit.
#include "kernels/elementwise/elementwise_vector_math.h"
#include "kernels/x86/vector_math_impl.h"
#include "kernels/x86/vector_ops__avx512f.h"

namespace loom::kernels {

const F32MathKernels& F32MathKernelsAvx512() {
  static const F32MathKernels kRow = vector_math::MathRow<Avx512Ops>(Isa::kAvx512f);
  return kRow;
}

}  // namespace loom::kernels
