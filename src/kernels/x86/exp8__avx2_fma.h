// Exp8: exp of 8 floats with AVX2 + FMA, the one AVX2 exp of the kernels
// (unary Exp, Sigmoid, SiLU and GELU in elementwise/f32_activation__avx2_fma.cc,
// softmax in normalization/f32_softmax__avx2_fma.cc, attention): vector_math::Exp of
// x86/vector_math_impl.h, which says how and how well.
//
// Within 2 ulp of exp (computed in double) where the result is normal,
// within one subnormal step below -87.3 (a subnormal result, as std::exp
// gives, not 0), exactly 0 below about -103.9 and for -inf (so a masked-out
// logit contributes nothing to a softmax), +inf from 89 on, NaN kept.
// softmax_test.cc and activation_test.cc measure it, including the cut-offs.
//
// Internal linkage: include only from files compiled with -mavx2 -mfma,
// each then holds its own copy.
#pragma once

#include <immintrin.h>

#include "kernels/x86/vector_math_impl.h"
#include "kernels/x86/vector_ops__avx2_fma.h"

namespace loom::kernels {

static inline __m256 Exp8(__m256 x) { return vector_math::Exp<Avx2Ops>(x); }

// exp(t) for the sigmoid's 1 + exp(t): vector_math::ExpForSigmoid.
static inline __m256 ExpForSigmoid8(__m256 t) { return vector_math::ExpForSigmoid<Avx2Ops>(t); }

}  // namespace loom::kernels
