// Float32 activations and exp / log / erf / floor / ceil with AVX2 + FMA,
// eight lanes at a time: x86/vector_math_impl.h (where the approximations
// and their errors are listed) on x86/vector_ops__avx2_fma.h.
#include "kernels/elementwise/elementwise_vector_math.h"
#include "kernels/x86/vector_math_impl.h"
#include "kernels/x86/vector_ops__avx2_fma.h"

namespace loom::kernels {

const F32MathKernels& F32MathKernelsAvx2() {
  static const F32MathKernels kRow = vector_math::MathRow<Avx2Ops>(Isa::kAvx2Fma);
  return kRow;
}

}  // namespace loom::kernels
