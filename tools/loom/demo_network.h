// The built-in demo network `loom run` / `trace` / `tune` use when no model
// is given, so the README's first command works on a fresh clone with no
// files. A small image classifier with fixed-seed weights:
//
//   image [N, 3, 64, 64]
//     → stem: Conv 3x3 (16) → Relu → MaxPool 2x2          [N, 16, 32, 32]
//     → tower_a: Conv 3x3 (32) → Relu → Conv 3x3 (32) → Relu
//       tower_b: Conv 1x1 (32) → Relu → Conv 3x3 (32) → Relu
//     → Concat (channels)                                 [N, 64, 32, 32]
//     → GlobalAveragePool → Flatten → MatMul → Add → Softmax
//   probabilities [N, 10]
//
// Each tower is ~10-20 MFLOP per image (a few hundred µs on one core), so
// running them on two inter-op threads visibly pays. Deterministic: the same
// graph, bit for bit, on every call.
#pragma once

#include "loom/graph.h"

namespace loom::cli {

inline constexpr const char* kDemoInputName = "image";
inline constexpr const char* kDemoOutputName = "probabilities";
inline constexpr int64_t kDemoClasses = 10;

// The demo graph; its input's batch dimension is the symbol "N".
Graph DemoNetwork();

}  // namespace loom::cli
