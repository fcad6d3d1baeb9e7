// Activations: the scalar reference (computed in double, then rounded), the
// portable loops (std:: functions, one pass per kind) and the per-ISA
// table of vector math kernels.
#include "kernels/elementwise/activation.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "kernels/elementwise/elementwise_vector_math.h"

namespace loom::kernels {
namespace {

// The ISA table: rows ascending by level. The AVX-512 row computes the AVX2
// row's bits on 16 lanes, in 0.59-0.73 of the AVX2 time per element on the
// Intel Xeon (sigmoid and tanh on 32-96 floats, an LSTM's gate spans; GELU
// on 1536; bench/results/recurrent-2026-12-05.md).
const std::array<F32MathKernels, 3>& MathTable() {
  static const std::array<F32MathKernels, 3> kTable = {
      F32MathKernels{Isa::kPortable, f32_activation__portable, f32_exp__portable, f32_log__portable,
                     f32_erf__portable, f32_floor__portable, f32_ceil__portable},
      F32MathKernelsAvx2(), F32MathKernelsAvx512()};
  return kTable;
}
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;

// Loops written so NaN inputs stay NaN: a comparison with NaN is false, so
// `x < 0 ? 0 : x` keeps x.
template <typename Fn>
void Transform(const float* x, float* y, int64_t n, Fn fn) {
  for (int64_t i = 0; i < n; ++i) y[i] = fn(x[i]);
}

}  // namespace

std::string_view ActivationName(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kIdentity:
      return "Identity";
    case ActivationKind::kRelu:
      return "Relu";
    case ActivationKind::kLeakyRelu:
      return "LeakyRelu";
    case ActivationKind::kClip:
      return "Clip";
    case ActivationKind::kSigmoid:
      return "Sigmoid";
    case ActivationKind::kTanh:
      return "Tanh";
    case ActivationKind::kHardSigmoid:
      return "HardSigmoid";
    case ActivationKind::kHardSwish:
      return "HardSwish";
    case ActivationKind::kSilu:
      return "Silu";
    case ActivationKind::kGelu:
      return "Gelu";
  }
  return "Unknown";
}

float ActivationReference(const Activation& activation, float x_float) {
  const double x = x_float;
  const double alpha = activation.alpha;
  const double beta = activation.beta;
  double y = x;
  switch (activation.kind) {
    case ActivationKind::kIdentity:
      break;
    case ActivationKind::kRelu:
      y = x < 0 ? 0.0 : x;
      break;
    case ActivationKind::kLeakyRelu:
      y = x < 0 ? alpha * x : x;
      break;
    case ActivationKind::kClip:
      y = x < alpha ? alpha : x;  // min(max(x, alpha), beta): beta wins when alpha > beta
      y = y > beta ? beta : y;
      break;
    case ActivationKind::kSigmoid:
      y = 1.0 / (1.0 + std::exp(-x));
      break;
    case ActivationKind::kTanh:
      y = std::tanh(x);
      break;
    case ActivationKind::kHardSigmoid:
      y = std::fmax(0.0, std::fmin(1.0, alpha * x + beta));
      if (std::isnan(x)) y = x;
      break;
    case ActivationKind::kHardSwish:
      y = x * std::fmax(0.0, std::fmin(1.0, x / 6.0 + 0.5));
      if (std::isnan(x)) y = x;
      break;
    case ActivationKind::kSilu:
      y = x / (1.0 + std::exp(-x));
      break;
    case ActivationKind::kGelu:
      y = activation.gelu_tanh
              ? 0.5 * x * (1.0 + std::tanh(kSqrtTwoOverPi * (x + 0.044715 * x * x * x)))
              : 0.5 * x * (1.0 + std::erf(x * kSqrtHalf));
      break;
  }
  return static_cast<float>(y);
}

void f32_activation__portable(const Activation& activation, const float* in, float* out,
                              int64_t n) {
  const float alpha = activation.alpha;
  const float beta = activation.beta;
  switch (activation.kind) {
    case ActivationKind::kIdentity:
      if (in != out) std::copy(in, in + n, out);
      return;
    case ActivationKind::kRelu:
      return Transform(in, out, n, [](float x) { return x < 0.0f ? 0.0f : x; });
    case ActivationKind::kLeakyRelu:
      return Transform(in, out, n, [alpha](float x) { return x < 0.0f ? alpha * x : x; });
    case ActivationKind::kClip:
      return Transform(in, out, n, [alpha, beta](float x) {
        const float low = x < alpha ? alpha : x;
        return low > beta ? beta : low;
      });
    case ActivationKind::kSigmoid:
      return Transform(in, out, n, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
    case ActivationKind::kTanh:
      return Transform(in, out, n, [](float x) { return std::tanh(x); });
    case ActivationKind::kHardSigmoid:
      return Transform(in, out, n, [alpha, beta](float x) {
        const float y = alpha * x + beta;
        return y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);
      });
    case ActivationKind::kHardSwish:
      return Transform(in, out, n, [](float x) {
        const float y = x * (1.0f / 6.0f) + 0.5f;
        return x * (y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y));
      });
    case ActivationKind::kSilu:
      return Transform(in, out, n, [](float x) { return x / (1.0f + std::exp(-x)); });
    case ActivationKind::kGelu:
      if (activation.gelu_tanh) {
        const float k = static_cast<float>(kSqrtTwoOverPi);
        return Transform(in, out, n, [k](float x) {
          return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
        });
      }
      return Transform(in, out, n, [](float x) {
        return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(kSqrtHalf)));
      });
  }
}

void f32_exp__portable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

void f32_log__portable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
}

void f32_erf__portable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::erf(x[i]);
}

void f32_floor__portable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::floor(x[i]);
}

void f32_ceil__portable(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::ceil(x[i]);
}

const F32MathKernels& F32MathFor(Isa isa) {
  // GEMM and conv epilogues call this once per tile row (16-32 floats), so
  // each supported level's choice is made once; a level this CPU lacks goes
  // to the helper, which refuses it.
  static const std::array<const F32MathKernels*, 3> kChosen = [] {
    std::array<const F32MathKernels*, 3> chosen{};
    for (Isa level : {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f}) {
      if (IsaSupported(level)) {
        chosen[static_cast<size_t>(level)] = &SelectIsaVariant("vector math", MathTable(), level);
      }
    }
    return chosen;
  }();
  const auto level = static_cast<size_t>(isa);
  if (level < kChosen.size() && kChosen[level] != nullptr) return *kChosen[level];
  return SelectIsaVariant("vector math", MathTable(), isa);
}

IsaMask F32MathIsaLevels() { return IsaVariantLevels(MathTable()); }

void ApplyActivation(const Activation& activation, const float* x, float* y, int64_t n, Isa isa) {
  if (n <= 0) return;
  F32MathFor(isa).activation(activation, x, y, n);
}

void ApplyActivation(const Activation& activation, float* data, int64_t n, Isa isa) {
  // Epilogues call this per tile: the identity returns before the table lookup.
  if (activation.kind == ActivationKind::kIdentity) return;
  ApplyActivation(activation, data, data, n, isa);
}

}  // namespace loom::kernels
