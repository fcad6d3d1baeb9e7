#include "kernels/recurrent/recurrent_problem.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace loom::kernels::recurrent {
namespace {

struct ActivationInfo {
  std::string_view name;
  ActivationFn fn;
  bool uses_alpha, uses_beta;
  float default_alpha, default_beta;
};

// ONNX's list for the recurrent ops; defaults as ONNX Runtime's.
constexpr ActivationInfo kActivations[] = {
    {"affine", ActivationFn::kAffine, true, true, 1.0f, 0.0f},
    {"elu", ActivationFn::kElu, true, false, 1.0f, 0.0f},
    {"hardsigmoid", ActivationFn::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"leakyrelu", ActivationFn::kLeakyRelu, true, false, 0.01f, 0.0f},
    {"relu", ActivationFn::kRelu, false, false, 0.0f, 0.0f},
    {"scaledtanh", ActivationFn::kScaledTanh, true, true, 1.0f, 1.0f},
    {"sigmoid", ActivationFn::kSigmoid, false, false, 0.0f, 0.0f},
    {"softplus", ActivationFn::kSoftplus, false, false, 0.0f, 0.0f},
    {"softsign", ActivationFn::kSoftsign, false, false, 0.0f, 0.0f},
    {"tanh", ActivationFn::kTanh, false, false, 0.0f, 0.0f},
    {"thresholdedrelu", ActivationFn::kThresholdedRelu, true, false, 1.0f, 0.0f},
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> DefaultActivations(CellKind cell) {
  switch (cell) {
    case CellKind::kRnn:
      return {"Tanh"};
    case CellKind::kGru:
      return {"Sigmoid", "Tanh"};
    case CellKind::kLstm:
      return {"Sigmoid", "Tanh", "Tanh"};
  }
  return {};
}

// activation_alpha / activation_beta are consumed in order by the
// activations that take the parameter (ONNX Runtime's reading); an
// activation past the end of the list gets its default.
std::vector<CellActivation> ParseActivations(std::string_view op, CellKind cell, int num_directions,
                                             const Attributes& attrs) {
  const size_t per_direction = static_cast<size_t>(ActivationsPerDirection(cell));
  const size_t wanted = per_direction * static_cast<size_t>(num_directions);
  std::vector<std::string> names;
  if (attrs.has("activations")) {
    names = attrs.get_strings("activations");
    // One direction's list for a bidirectional node serves both.
    if (names.size() == per_direction && num_directions == 2) {
      names.insert(names.end(), names.begin(), names.end());
    }
    if (names.size() != wanted) {
      ThrowKernelError(op, "attribute 'activations' must have " + std::to_string(wanted) +
                               " names (" + std::to_string(per_direction) +
                               " per direction), got " + std::to_string(names.size()));
    }
  } else {
    for (int d = 0; d < num_directions; ++d) {
      for (const std::string& name : DefaultActivations(cell)) names.push_back(name);
    }
  }
  const std::vector<float> alphas = attrs.get_floats("activation_alpha", {});
  const std::vector<float> betas = attrs.get_floats("activation_beta", {});
  size_t next_alpha = 0, next_beta = 0;
  std::vector<CellActivation> result;
  for (const std::string& name : names) {
    const std::string lower = Lower(name);
    const ActivationInfo* info = nullptr;
    for (const ActivationInfo& candidate : kActivations) {
      if (candidate.name == lower) info = &candidate;
    }
    if (info == nullptr) {
      ThrowKernelError(op, "activation '" + name + "' is not supported");
    }
    CellActivation activation{info->fn, info->default_alpha, info->default_beta};
    if (info->uses_alpha && next_alpha < alphas.size()) activation.alpha = alphas[next_alpha++];
    if (info->uses_beta && next_beta < betas.size()) activation.beta = betas[next_beta++];
    result.push_back(activation);
  }
  return result;
}

void CheckShape(std::string_view op, std::string_view name, const Tensor& tensor,
                const std::vector<int64_t>& want) {
  if (tensor.shape().dims() != want) {
    ThrowKernelError(op, "input '" + std::string(name) + "' must have shape " +
                             Shape(want).to_string() + " (got " + tensor.shape().to_string() + ")");
  }
}

}  // namespace

int GateCount(CellKind cell) {
  switch (cell) {
    case CellKind::kRnn:
      return 1;
    case CellKind::kGru:
      return 3;
    case CellKind::kLstm:
      return 4;
  }
  return 1;
}

int ActivationsPerDirection(CellKind cell) {
  switch (cell) {
    case CellKind::kRnn:
      return 1;
    case CellKind::kGru:
      return 2;
    case CellKind::kLstm:
      return 3;
  }
  return 1;
}

double EvaluateActivation(const CellActivation& a, double x) {
  const double alpha = a.alpha, beta = a.beta;
  switch (a.fn) {
    case ActivationFn::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case ActivationFn::kTanh:
      return std::tanh(x);
    case ActivationFn::kRelu:
      return x > 0.0 ? x : 0.0;
    case ActivationFn::kAffine:
      return alpha * x + beta;
    case ActivationFn::kLeakyRelu:
      return x < 0.0 ? alpha * x : x;
    case ActivationFn::kThresholdedRelu:
      return x >= alpha ? x : 0.0;
    case ActivationFn::kScaledTanh:
      return alpha * std::tanh(beta * x);
    case ActivationFn::kHardSigmoid:
      return std::max(0.0, std::min(1.0, alpha * x + beta));
    case ActivationFn::kElu:
      return x < 0.0 ? alpha * (std::exp(x) - 1.0) : x;
    case ActivationFn::kSoftsign:
      return x / (1.0 + std::abs(x));
    case ActivationFn::kSoftplus:
      return std::log1p(std::exp(x));
  }
  return x;
}

Shape RecurrentProblem::YShape() const {
  return layout == 0 ? Shape({seq, num_directions, batch, hidden})
                     : Shape({batch, seq, num_directions, hidden});
}

Shape RecurrentProblem::StateShape() const {
  return layout == 0 ? Shape({num_directions, batch, hidden})
                     : Shape({batch, num_directions, hidden});
}

RecurrentProblem ParseRecurrent(CellKind cell, const Attributes& attrs, KernelInputs inputs) {
  RecurrentProblem p;
  p.cell = cell;
  p.op = cell == CellKind::kRnn ? "RNN" : cell == CellKind::kGru ? "GRU" : "LSTM";
  const std::string_view op = p.op;
  CheckInputCount(op, inputs, 3, cell == CellKind::kLstm ? 8 : 6);
  p.x_input = &RequiredInput(op, inputs, 0, "X");
  p.w_input = &RequiredInput(op, inputs, 1, "W");
  p.r_input = &RequiredInput(op, inputs, 2, "R");
  p.b_input = OptionalInput(inputs, 3);
  const Tensor* lengths = OptionalInput(inputs, 4);
  p.initial_h = OptionalInput(inputs, 5);
  if (cell == CellKind::kLstm) {
    p.initial_c = OptionalInput(inputs, 6);
    p.p_input = OptionalInput(inputs, 7);
  }
  for (auto [tensor, name] : {std::pair{p.x_input, "X"},
                              {p.w_input, "W"},
                              {p.r_input, "R"},
                              {p.b_input, "B"},
                              {p.initial_h, "initial_h"},
                              {p.initial_c, "initial_c"},
                              {p.p_input, "P"}}) {
    if (tensor != nullptr) CheckDType(op, name, *tensor, {DType::kFloat32});
  }
  CheckRank(op, "X", *p.x_input, 3);
  CheckRank(op, "W", *p.w_input, 3);
  CheckRank(op, "R", *p.r_input, 3);

  const std::string direction = attrs.get_string("direction", "forward");
  if (direction == "bidirectional") {
    p.num_directions = 2;
  } else if (direction == "reverse") {
    p.reverse = true;
  } else if (direction != "forward") {
    ThrowKernelError(op, "attribute 'direction' must be forward, reverse or bidirectional (got '" +
                             direction + "')");
  }
  p.layout = static_cast<int>(attrs.get_int("layout", 0));
  if (p.layout != 0 && p.layout != 1) {
    ThrowKernelError(op,
                     "attribute 'layout' must be 0 or 1 (got " + std::to_string(p.layout) + ")");
  }
  const auto& x_dims = p.x_input->shape().dims();
  p.seq = p.layout == 0 ? x_dims[0] : x_dims[1];
  p.batch = p.layout == 0 ? x_dims[1] : x_dims[0];
  p.input_size = x_dims[2];
  const int64_t nd = p.num_directions;
  const int64_t gates = GateCount(cell);
  const auto& r_dims = p.r_input->shape().dims();
  p.hidden = r_dims[2];
  if (attrs.has("hidden_size") && attrs.get_int("hidden_size") != p.hidden) {
    ThrowKernelError(op,
                     "attribute 'hidden_size' = " + std::to_string(attrs.get_int("hidden_size")) +
                         " does not match input 'R' of shape " + p.r_input->shape().to_string());
  }
  CheckShape(op, "R", *p.r_input, {nd, gates * p.hidden, p.hidden});
  CheckShape(op, "W", *p.w_input, {nd, gates * p.hidden, p.input_size});
  if (p.b_input) CheckShape(op, "B", *p.b_input, {nd, 2 * gates * p.hidden});
  const std::vector<int64_t> state = p.layout == 0 ? std::vector<int64_t>{nd, p.batch, p.hidden}
                                                   : std::vector<int64_t>{p.batch, nd, p.hidden};
  if (p.initial_h) CheckShape(op, "initial_h", *p.initial_h, state);
  if (p.initial_c) CheckShape(op, "initial_c", *p.initial_c, state);
  if (p.p_input) CheckShape(op, "P", *p.p_input, {nd, 3 * p.hidden});

  p.lengths.assign(static_cast<size_t>(p.batch), p.seq);
  if (lengths) {
    CheckDType(op, "sequence_lens", *lengths, {DType::kInt32});
    CheckShape(op, "sequence_lens", *lengths, {p.batch});
    const int32_t* values = lengths->data<int32_t>();
    for (int64_t b = 0; b < p.batch; ++b) {
      if (values[b] < 0 || values[b] > p.seq) {
        ThrowKernelError(op, "input 'sequence_lens' must be in [0, " + std::to_string(p.seq) +
                                 "] (got " + std::to_string(values[b]) + " for batch " +
                                 std::to_string(b) + ")");
      }
      p.lengths[static_cast<size_t>(b)] = values[b];
    }
  }
  if (attrs.has("clip")) {
    p.has_clip = true;
    p.clip = attrs.get_float("clip");
    if (!(p.clip > 0.0f)) {
      ThrowKernelError(op,
                       "attribute 'clip' must be positive (got " + std::to_string(p.clip) + ")");
    }
  }
  p.linear_before_reset = cell == CellKind::kGru && attrs.get_int("linear_before_reset", 0) != 0;
  p.input_forget = cell == CellKind::kLstm && attrs.get_int("input_forget", 0) != 0;
  p.activations = ParseActivations(op, cell, p.num_directions, attrs);
  return p;
}

}  // namespace loom::kernels::recurrent
