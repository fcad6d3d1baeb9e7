// Float32 activations and exp / log / erf / floor / ceil with AVX-512F,
// sixteen lanes at a time: x86/vector_math_impl.h (where the approximations
// and their errors are listed) on x86/vector_ops__avx512f.h: the AVX2
// results bit for bit.
#include "kernels/elementwise_vector_math.h"
#include "kernels/x86/vector_math_impl.h"
#include "kernels/x86/vector_ops__avx512f.h"

namespace loom::kernels {

void f32_activation__avx512f(const Activation& activation, const float* x, float* y, int64_t n) {
  vector_math::Activate<Avx512Ops>(activation, x, y, n);
}
void f32_exp__avx512f(const float* x, float* y, int64_t n) {
  vector_math::ExpSpan<Avx512Ops>(x, y, n);
}
void f32_log__avx512f(const float* x, float* y, int64_t n) {
  vector_math::LogSpan<Avx512Ops>(x, y, n);
}
void f32_erf__avx512f(const float* x, float* y, int64_t n) {
  vector_math::ErfSpan<Avx512Ops>(x, y, n);
}
void f32_floor__avx512f(const float* x, float* y, int64_t n) {
  vector_math::FloorSpan<Avx512Ops>(x, y, n);
}
void f32_ceil__avx512f(const float* x, float* y, int64_t n) {
  vector_math::CeilSpan<Avx512Ops>(x, y, n);
}

}  // namespace loom::kernels
