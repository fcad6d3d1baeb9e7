// Activations that GEMM and Conv fuse into their output (applied in place
// on each finished tile while it is still in cache), and that the
// elementwise kernels (elementwise.h) use for the standalone ops.
//
//   ApplyActivation({ActivationKind::kRelu}, data, n, isa);
//
// is the serial loop `for i < n: data[i] = f(data[i])`. It never
// parallelizes: callers already run it inside their own ParallelFor shard.
#pragma once

#include <cstdint>
#include <string_view>

#include "kernels/isa.h"

namespace loom::kernels {

enum class ActivationKind {
  kIdentity,
  kRelu,
  kLeakyRelu,  // x < 0 ? alpha * x : x
  kClip,       // min(max(x, alpha), beta); alpha = min, beta = max
  kSigmoid,
  kTanh,
  kHardSigmoid,  // max(0, min(1, alpha * x + beta))
  kHardSwish,    // x * max(0, min(1, x / 6 + 1 / 2))
  kSilu,         // x * sigmoid(x)
  kGelu,         // 0.5 x (1 + erf(x / sqrt 2)); the tanh form when gelu_tanh
};

struct Activation {
  ActivationKind kind = ActivationKind::kIdentity;
  float alpha = 0.0f;
  float beta = 0.0f;
  bool gelu_tanh = false;
};

// The ONNX op name ("Relu", "LeakyRelu", "Clip", ...); "Identity" for none.
std::string_view ActivationName(ActivationKind kind);

// In place on n contiguous floats, using `isa` at most.
void ApplyActivation(const Activation& activation, float* data, int64_t n, Isa isa);
// y[i] = f(x[i]) for n contiguous floats (x == y allowed, no other overlap);
// the identity copies.
void ApplyActivation(const Activation& activation, const float* x, float* y, int64_t n, Isa isa);

// The plain scalar version (the test oracle).
float ActivationReference(const Activation& activation, float x);

}  // namespace loom::kernels
