// Float32 activations and exp / log / erf / floor / ceil with AVX2 + FMA,
// eight lanes at a time: x86/vector_math_impl.h (where the approximations
// and their errors are listed) on x86/vector_ops__avx2_fma.h.
#include "kernels/elementwise_vector_math.h"
#include "kernels/x86/vector_math_impl.h"
#include "kernels/x86/vector_ops__avx2_fma.h"

namespace loom::kernels {

void f32_activation__avx2_fma(const Activation& activation, const float* x, float* y, int64_t n) {
  vector_math::Activate<Avx2Ops>(activation, x, y, n);
}
void f32_exp__avx2_fma(const float* x, float* y, int64_t n) {
  vector_math::ExpSpan<Avx2Ops>(x, y, n);
}
void f32_log__avx2_fma(const float* x, float* y, int64_t n) {
  vector_math::LogSpan<Avx2Ops>(x, y, n);
}
void f32_erf__avx2_fma(const float* x, float* y, int64_t n) {
  vector_math::ErfSpan<Avx2Ops>(x, y, n);
}
void f32_floor__avx2_fma(const float* x, float* y, int64_t n) {
  vector_math::FloorSpan<Avx2Ops>(x, y, n);
}
void f32_ceil__avx2_fma(const float* x, float* y, int64_t n) {
  vector_math::CeilSpan<Avx2Ops>(x, y, n);
}

}  // namespace loom::kernels
