// Float32 vector math behind the activations (activation.h) and the unary
// Exp, Log, Erf, Floor and Ceil kernels: one row of kernels per ISA level, chosen at run
// time from kF32MathKernels (activation.cc).
//
//   F32MathFor(isa).exp(x, y, n);   // for i < n: y[i] = exp(x[i])
//
// x and y may be the same array (in place) but must not otherwise overlap.
// The portable row calls std:: functions; the AVX2+FMA and AVX-512 rows use
// one set of polynomial approximations (x86/vector_math_impl.h, which lists
// their errors) and give the same bits.
// None of them parallelize; callers run them inside their own shards.
#pragma once

#include <cstdint>

#include "kernels/elementwise/activation.h"
#include "kernels/isa_variant.h"

namespace loom::kernels {

using F32UnaryFn = void (*)(const float* x, float* y, int64_t n);
using F32ActivationFn = void (*)(const Activation& activation, const float* x, float* y, int64_t n);

struct F32MathKernels {
  Isa isa;
  F32ActivationFn activation;  // y[i] = f(x[i]); x == y allowed
  F32UnaryFn exp;
  F32UnaryFn log;
  F32UnaryFn erf;
  // Baseline x86-64 has no vector rounding (roundps is SSE4.1), so the
  // portable floor / ceil are libm calls per element.
  F32UnaryFn floor;
  F32UnaryFn ceil;
};

// The row for the highest level in the table that is not above `isa`.
const F32MathKernels& F32MathFor(Isa isa);
// The ISA levels with their own row (isa_variant.h).
IsaMask F32MathIsaLevels();

void f32_activation__portable(const Activation& activation, const float* x, float* y, int64_t n);
void f32_exp__portable(const float* x, float* y, int64_t n);
void f32_log__portable(const float* x, float* y, int64_t n);
void f32_erf__portable(const float* x, float* y, int64_t n);
void f32_floor__portable(const float* x, float* y, int64_t n);
void f32_ceil__portable(const float* x, float* y, int64_t n);

// The vector rows (x86/vector_math_impl.h instantiated per ISA file): the
// same bits at both widths.
const F32MathKernels& F32MathKernelsAvx2();
const F32MathKernels& F32MathKernelsAvx512();

}  // namespace loom::kernels
