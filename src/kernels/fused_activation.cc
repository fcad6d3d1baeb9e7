#include "kernels/fused_activation.h"

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels {
namespace {

struct FusableActivation {
  ActivationKind kind;
  std::string_view name;
  size_t params;  // how many activation_params it takes
};

// The activations GEMM and Conv can fuse, with their parameter counts.
constexpr std::array<FusableActivation, 9> kFusable = {{
    {ActivationKind::kRelu, "Relu", 0},
    {ActivationKind::kLeakyRelu, "LeakyRelu", 1},
    {ActivationKind::kClip, "Clip", 2},
    {ActivationKind::kSigmoid, "Sigmoid", 0},
    {ActivationKind::kTanh, "Tanh", 0},
    {ActivationKind::kHardSigmoid, "HardSigmoid", 2},
    {ActivationKind::kHardSwish, "HardSwish", 0},
    {ActivationKind::kSilu, "Silu", 0},
    {ActivationKind::kGelu, "Gelu", 1},
}};

}  // namespace

Activation FusedActivationFromAttributes(std::string_view op, const Attributes& attrs) {
  Activation activation;
  if (!attrs.has("activation")) return activation;
  const std::string name = attrs.get_string("activation");
  const std::vector<float> params = attrs.get_floats("activation_params", {});
  for (const FusableActivation& entry : kFusable) {
    if (entry.name != name) continue;
    // Gelu's parameter is optional (default: the erf form).
    const bool count_ok =
        params.size() == entry.params || (entry.kind == ActivationKind::kGelu && params.empty());
    if (!count_ok) {
      ThrowKernelError(op, "fused activation " + name + " takes " + std::to_string(entry.params) +
                               " activation_params (got " + std::to_string(params.size()) + ")");
    }
    activation.kind = entry.kind;
    if (entry.kind == ActivationKind::kGelu) {
      activation.gelu_tanh = !params.empty() && params[0] != 0.0f;
    } else {
      if (!params.empty()) activation.alpha = params[0];
      if (params.size() > 1) activation.beta = params[1];
    }
    return activation;
  }
  ThrowKernelError(op, "unknown fused activation '" + name + "'");
}

void SetFusedActivationAttributes(const Activation& activation, Attributes& attrs) {
  if (activation.kind == ActivationKind::kIdentity) return;
  for (const FusableActivation& entry : kFusable) {
    if (entry.kind != activation.kind) continue;
    attrs.set("activation", std::string(entry.name));
    std::vector<float> params;
    if (entry.kind == ActivationKind::kGelu) {
      params.push_back(activation.gelu_tanh ? 1.0f : 0.0f);
    } else {
      if (entry.params > 0) params.push_back(activation.alpha);
      if (entry.params > 1) params.push_back(activation.beta);
    }
    attrs.set("activation_params", params);
    return;
  }
}

}  // namespace loom::kernels
