// The float32 vector math of the activations and the unary Exp / Log / Erf /
// Floor / Ceil kernels, written once over a vector-ops type `O` (AVX2 + FMA
// in x86/vector_ops__avx2_fma.h, AVX-512F in x86/vector_ops__avx512f.h).
// Both run the same IEEE operations in the same order on every lane, so
// AVX-512 gives the AVX2 results bit for bit, twice as many lanes a step
// (activation_test.cc checks it). A tail shorter than a vector goes through
// a zero-filled vector (O::MapTail), so every element takes the same code
// path and results do not depend on where a shard or an array starts.
//
// Approximations (max error over the test's dense sweep, against the value
// computed in double and rounded; see activation_test.cc):
//   exp:  Cephes range reduction x = n ln2 + r, |r| <= ln2 / 2, degree-6
//         polynomial; 2^n applied as two factors so subnormal results are
//         right (within one subnormal step); exactly 0 below about -103.9
//         and for -inf, +inf from 89 on. Relative error 1.2e-7 (1 ulp).
//         AVX2's Exp8 (x86/exp8__avx2_fma.h: softmax, attention) is this.
//   log:  Cephes: x = m 2^e, m in [sqrt(1/2), sqrt(2)), degree-9 polynomial
//         in m - 1; subnormal inputs prescaled. Relative error 7.7e-8.
//   erf:  odd/even rational minimax on [-4, 4] (the form Eigen uses);
//         absolute error 3.8e-7, exactly +-1 from |x| >= 3.92.
//   tanh: odd/even rational minimax on [-7.905, 7.905]; absolute error
//         2.4e-7, x itself below |x| < 4e-4, exactly +-1 from 9.1.
//   sigmoid = 1 / (1 + exp(-x)), silu = x / (1 + exp(-x)): absolute
//         error 6e-8 for sigmoid (relative error of exp plus a division);
//         exp through ExpForSigmoid (the same bits where they matter).
// NaN in gives NaN out; +-inf give the limits.
//
// Internal linkage (an unnamed namespace): include only from files compiled
// for O's ISA; each then holds its own copy.
#pragma once

#include <cstring>

#include "kernels/elementwise/activation.h"
#include "kernels/elementwise/elementwise_vector_math.h"

namespace loom::kernels {
namespace {
namespace vector_math {

// e^(t - n ln2) for n = round(t / ln2): |t - n ln2| <= ln2 / 2, a degree-6
// polynomial (Cephes). Exp and ExpForSigmoid scale it by 2^n.
template <class O>
inline typename O::V ExpReduced(typename O::V t, typename O::V n) {
  using V = typename O::V;
  // r = t - n ln2, ln2 split so n * 0.693359375 is exact for |n| <= 2^9.
  V r = O::Fnma(n, O::Set(0.693359375f), t);
  r = O::Fnma(n, O::Set(-2.12194440e-4f), r);
  V p = O::Set(1.9875691500e-4f);
  p = O::Fma(p, r, O::Set(1.3981999507e-3f));
  p = O::Fma(p, r, O::Set(8.3334519073e-3f));
  p = O::Fma(p, r, O::Set(4.1665795894e-2f));
  p = O::Fma(p, r, O::Set(1.6666665459e-1f));
  p = O::Fma(p, r, O::Set(5.0000001201e-1f));
  p = O::Fma(p, O::Mul(r, r), O::Add(r, O::Set(1.0f)));
  return p;
}

template <class O>
inline typename O::V Exp(typename O::V x) {
  using V = typename O::V;
  const auto nan_mask = O::Unordered(x, x);
  // exp(89) overflows to inf through the scaling below; below -104 the
  // result rounds to zero even as a subnormal.
  const V t = O::Min(O::Max(x, O::Set(-104.0f)), O::Set(89.0f));
  const V n = O::RoundNearest(O::Mul(t, O::Set(1.44269504088896341f)));
  const V p = ExpReduced<O>(t, n);
  // 2^n as two factors 2^(n >> 1) and 2^(n - (n >> 1)): both stay normal
  // for n in [-150, 129], so a subnormal product is rounded once.
  return O::Select(nan_mask, x, O::ScaleByPow2(p, n));
}

// exp(t) where only 1 + exp(t) matters (the sigmoid's and SiLU's
// denominator): the same bits as Exp wherever they can change 1 + exp(t),
// with 6 fewer vector operations. Below t = -16.7, exp(t) is under half an
// ulp of 1 and 1 + exp(t) rounds to 1, so t is clamped at -20 and exp(t)
// never goes subnormal; 2^n (n <= 128) is then one normal factor 2^(n - 1)
// times 2p (exact), not Exp's two, and there is no NaN select: the clamp
// keeps a NaN (Max and Min return their second operand) and p is NaN.
// Both round p * 2^n once. SiLU in cache on Zen 3 (AVX2): 0.71 ns an
// element through Exp, 0.545 through this
// (bench/results/sigmoid-exp-2026-12-07.md).
template <class O>
inline typename O::V ExpForSigmoid(typename O::V t) {
  using V = typename O::V;
  t = O::Min(O::Set(89.0f), O::Max(O::Set(-20.0f), t));
  const V n = O::RoundNearest(O::Mul(t, O::Set(1.44269504088896341f)));
  const V p = ExpReduced<O>(t, n);
  return O::Mul(O::Add(p, p), O::Pow2(O::Sub(n, O::Set(1.0f))));
}

// log(x): NaN for x < 0 or NaN, -inf for 0, inf for inf.
template <class O>
inline typename O::V Log(typename O::V x) {
  using V = typename O::V;
  const auto invalid = O::NotGreaterEqual(x, O::Set(0.0f));  // x < 0 or NaN
  const auto zero = O::Equal(x, O::Set(0.0f));
  const auto inf = O::Equal(x, O::Set(__builtin_inff()));
  // Subnormals: scale by 2^23 first so the exponent field is meaningful.
  const auto tiny = O::Less(x, O::Set(1.17549435e-38f));
  const V v = O::Select(tiny, O::Mul(x, O::Set(8388608.0f)), x);
  const V e_bias = O::Select(tiny, O::Set(126.0f + 23.0f), O::Set(126.0f));
  V e = O::Sub(O::ExponentField(v), e_bias);
  // m in [0.5, 1).
  const V m = O::MantissaInHalfToOne(v);
  const auto small = O::Less(m, O::Set(0.707106781186547524f));
  e = O::Sub(e, O::SelectOrZero(small, O::Set(1.0f)));
  // f = 2m - 1 when m < sqrt(1/2), else m - 1.
  const V f = O::Sub(O::Add(m, O::SelectOrZero(small, m)), O::Set(1.0f));
  const V z = O::Mul(f, f);
  V p = O::Set(7.0376836292e-2f);
  p = O::Fma(p, f, O::Set(-1.1514610310e-1f));
  p = O::Fma(p, f, O::Set(1.1676998740e-1f));
  p = O::Fma(p, f, O::Set(-1.2420140846e-1f));
  p = O::Fma(p, f, O::Set(1.4249322787e-1f));
  p = O::Fma(p, f, O::Set(-1.6668057665e-1f));
  p = O::Fma(p, f, O::Set(2.0000714765e-1f));
  p = O::Fma(p, f, O::Set(-2.4999993993e-1f));
  p = O::Fma(p, f, O::Set(3.3333331174e-1f));
  V y = O::Mul(O::Mul(p, f), z);
  y = O::Fma(e, O::Set(-2.12194440e-4f), y);
  y = O::Fnma(z, O::Set(0.5f), y);
  y = O::Add(f, y);
  y = O::Fma(e, O::Set(0.693359375f), y);
  y = O::Select(inf, O::Set(__builtin_inff()), y);
  y = O::Select(zero, O::Set(-__builtin_inff()), y);
  return O::Select(invalid, O::Set(__builtin_nanf("")), y);
}

// copysign(1, x).
template <class O>
inline typename O::V SignOne(typename O::V x) {
  return O::Or(O::Set(1.0f), O::And(O::Set(-0.0f), x));
}

// Rational erf on [-4, 4]; erf(4) is 1 in float.
template <class O>
inline typename O::V Erf(typename O::V x) {
  using V = typename O::V;
  const auto nan_mask = O::Unordered(x, x);
  const V c = O::Min(O::Max(x, O::Set(-4.0f)), O::Set(4.0f));
  const V x2 = O::Mul(c, c);
  V p = O::Fma(x2, O::Set(-2.72614225801306e-10f), O::Set(2.77068142495902e-08f));
  p = O::Fma(x2, p, O::Set(-2.10102402082508e-06f));
  p = O::Fma(x2, p, O::Set(-5.69250639462346e-05f));
  p = O::Fma(x2, p, O::Set(-7.34990630326855e-04f));
  p = O::Fma(x2, p, O::Set(-2.95459980854025e-03f));
  p = O::Fma(x2, p, O::Set(-1.60960333262415e-02f));
  p = O::Mul(c, p);
  V q = O::Fma(x2, O::Set(-1.45660718464996e-05f), O::Set(-2.13374055278905e-04f));
  q = O::Fma(x2, q, O::Set(-1.68282697438203e-03f));
  q = O::Fma(x2, q, O::Set(-7.37332916720468e-03f));
  q = O::Fma(x2, q, O::Set(-1.42647390514189e-02f));
  // From |x| >= 3.92 float erf is exactly +-1; the rational is ~2e-7 short
  // there, which Gelu would multiply by x.
  const auto saturated = O::GreaterEqual(O::Abs(x), O::Set(3.92f));
  const V y = O::Select(saturated, SignOne<O>(x), O::Div(p, q));
  return O::Select(nan_mask, x, y);
}

// Rational tanh on [-7.905, 7.905], where it reaches 1 in float.
template <class O>
inline typename O::V Tanh(typename O::V x) {
  using V = typename O::V;
  const auto nan_mask = O::Unordered(x, x);
  const V abs_x = O::Abs(x);
  const auto tiny = O::Less(abs_x, O::Set(0.0004f));
  const V c = O::Min(O::Max(x, O::Set(-7.90531110763549805f)), O::Set(7.90531110763549805f));
  const V x2 = O::Mul(c, c);
  V p = O::Fma(x2, O::Set(-2.76076847742355e-16f), O::Set(2.00018790482477e-13f));
  p = O::Fma(x2, p, O::Set(-8.60467152213735e-11f));
  p = O::Fma(x2, p, O::Set(5.12229709037114e-08f));
  p = O::Fma(x2, p, O::Set(1.48572235717979e-05f));
  p = O::Fma(x2, p, O::Set(6.37261928875436e-04f));
  p = O::Fma(x2, p, O::Set(4.89352455891786e-03f));
  p = O::Mul(c, p);
  V q = O::Fma(x2, O::Set(1.19825839466702e-06f), O::Set(1.18534705686654e-04f));
  q = O::Fma(x2, q, O::Set(2.26843463243900e-03f));
  q = O::Fma(x2, q, O::Set(4.89352518554385e-03f));
  V y = O::Select(tiny, x, O::Div(p, q));
  // From |x| >= 9.1 float tanh is exactly +-1 (the rational is 1 ulp short).
  const auto saturated = O::GreaterEqual(abs_x, O::Set(9.1f));
  y = O::Select(saturated, SignOne<O>(x), y);
  return O::Select(nan_mask, x, y);
}

template <class O>
inline typename O::V Clamp01(typename O::V y) {
  // max/min return the second operand for NaN, so NaN in y stays NaN.
  return O::Min(O::Set(1.0f), O::Max(O::Set(0.0f), y));
}

template <class O>
struct Params {
  typename O::V alpha, beta;
};

template <class O, ActivationKind kKind, bool kGeluTanh = false>
inline typename O::V Apply(typename O::V x, const Params<O>& k) {
  using V = typename O::V;
  if constexpr (kKind == ActivationKind::kRelu) {
    return O::Select(O::Less(x, O::Set(0.0f)), O::Set(0.0f), x);
  } else if constexpr (kKind == ActivationKind::kLeakyRelu) {
    return O::Select(O::Less(x, O::Set(0.0f)), O::Mul(x, k.alpha), x);
  } else if constexpr (kKind == ActivationKind::kClip) {
    const V low = O::Select(O::Less(x, k.alpha), k.alpha, x);
    return O::Select(O::Greater(low, k.beta), k.beta, low);
  } else if constexpr (kKind == ActivationKind::kSigmoid) {
    return O::Div(O::Set(1.0f), O::Add(O::Set(1.0f), ExpForSigmoid<O>(O::Sub(O::Set(0.0f), x))));
  } else if constexpr (kKind == ActivationKind::kTanh) {
    return Tanh<O>(x);
  } else if constexpr (kKind == ActivationKind::kHardSigmoid) {
    return Clamp01<O>(O::Fma(k.alpha, x, k.beta));
  } else if constexpr (kKind == ActivationKind::kHardSwish) {
    return O::Mul(x, Clamp01<O>(O::Fma(O::Set(1.0f / 6.0f), x, O::Set(0.5f))));
  } else if constexpr (kKind == ActivationKind::kSilu) {
    return O::Div(x, O::Add(O::Set(1.0f), ExpForSigmoid<O>(O::Sub(O::Set(0.0f), x))));
  } else if constexpr (kKind == ActivationKind::kGelu && kGeluTanh) {
    const V x3 = O::Mul(O::Mul(x, x), x);
    const V inner = O::Mul(O::Set(0.797884560802865f), O::Fma(O::Set(0.044715f), x3, x));
    return O::Mul(O::Mul(O::Set(0.5f), x), O::Add(O::Set(1.0f), Tanh<O>(inner)));
  } else if constexpr (kKind == ActivationKind::kGelu) {
    const V e = Erf<O>(O::Mul(x, O::Set(0.707106781186547524f)));
    return O::Mul(O::Mul(O::Set(0.5f), x), O::Add(O::Set(1.0f), e));
  } else {
    return x;
  }
}

// y[i] = fn(x[i]) for i < n: whole vectors, then the tail through O::MapTail.
template <class O, typename Fn>
inline void Map(const float* x, float* y, int64_t n, Fn fn) {
  int64_t i = 0;
  for (; i + O::kLanes <= n; i += O::kLanes) O::Store(y + i, fn(O::Load(x + i)));
  if (i < n) O::MapTail(x + i, y + i, static_cast<int>(n - i), fn);
}

template <class O, ActivationKind kKind, bool kGeluTanh = false>
void Run(const Params<O>& k, const float* x, float* y, int64_t n) {
  Map<O>(x, y, n, [&k](typename O::V v) { return Apply<O, kKind, kGeluTanh>(v, k); });
}

// The activation entry of F32MathKernels (elementwise_vector_math.h) for O.
template <class O>
void Activate(const Activation& activation, const float* x, float* y, int64_t n) {
  const Params<O> k{O::Set(activation.alpha), O::Set(activation.beta)};
  switch (activation.kind) {
    case ActivationKind::kIdentity:
      if (x != y) std::memcpy(y, x, static_cast<size_t>(n) * sizeof(float));
      return;
    case ActivationKind::kRelu:
      return Run<O, ActivationKind::kRelu>(k, x, y, n);
    case ActivationKind::kLeakyRelu:
      return Run<O, ActivationKind::kLeakyRelu>(k, x, y, n);
    case ActivationKind::kClip:
      return Run<O, ActivationKind::kClip>(k, x, y, n);
    case ActivationKind::kSigmoid:
      return Run<O, ActivationKind::kSigmoid>(k, x, y, n);
    case ActivationKind::kTanh:
      return Run<O, ActivationKind::kTanh>(k, x, y, n);
    case ActivationKind::kHardSigmoid:
      return Run<O, ActivationKind::kHardSigmoid>(k, x, y, n);
    case ActivationKind::kHardSwish:
      return Run<O, ActivationKind::kHardSwish>(k, x, y, n);
    case ActivationKind::kSilu:
      return Run<O, ActivationKind::kSilu>(k, x, y, n);
    case ActivationKind::kGelu:
      return activation.gelu_tanh ? Run<O, ActivationKind::kGelu, true>(k, x, y, n)
                                  : Run<O, ActivationKind::kGelu, false>(k, x, y, n);
  }
}

// One row of the math table for O: the activations and exp / log / erf /
// floor / ceil spans.
template <class O>
F32MathKernels MathRow(Isa isa) {
  using V = typename O::V;
  return {
      isa,
      Activate<O>,
      [](const float* x, float* y, int64_t n) { Map<O>(x, y, n, [](V v) { return Exp<O>(v); }); },
      [](const float* x, float* y, int64_t n) { Map<O>(x, y, n, [](V v) { return Log<O>(v); }); },
      [](const float* x, float* y, int64_t n) { Map<O>(x, y, n, [](V v) { return Erf<O>(v); }); },
      [](const float* x, float* y, int64_t n) {
        Map<O>(x, y, n, [](V v) { return O::RoundDown(v); });
      },
      [](const float* x, float* y, int64_t n) {
        Map<O>(x, y, n, [](V v) { return O::RoundUp(v); });
      }};
}

}  // namespace vector_math
}  // namespace
}  // namespace loom::kernels
