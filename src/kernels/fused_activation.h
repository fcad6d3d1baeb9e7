// The activation a fused Conv or Gemm node applies to its output, read from
// the node's attributes. Loom's fusion pass writes them the way ONNX
// Runtime's FusedConv does:
//
//   activation        = "Relu" | "LeakyRelu" | "Clip" | "Sigmoid" | "Tanh" |
//                       "HardSigmoid" | "HardSwish" | "Silu" | "Gelu"
//   activation_params = the activation's own attributes, in order:
//                       LeakyRelu [alpha], Clip [min, max],
//                       HardSigmoid [alpha, beta]; Gelu [1] = tanh form
//
// No "activation" attribute means none (ActivationKind::kIdentity).
#pragma once

#include <string_view>

#include "kernels/elementwise/activation.h"
#include "loom/attributes.h"

namespace loom::kernels {

// Throws InvalidArgumentError("<op>: ...") for an unknown activation name or
// the wrong number of parameters.
Activation FusedActivationFromAttributes(std::string_view op, const Attributes& attrs);

// The attributes that FusedActivationFromAttributes reads back as `activation`.
void SetFusedActivationAttributes(const Activation& activation, Attributes& attrs);

}  // namespace loom::kernels
