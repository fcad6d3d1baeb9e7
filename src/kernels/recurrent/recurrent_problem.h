// One recurrent node's attributes and inputs, checked and resolved once
// (recurrent_problem.cc), shared by the kernels (recurrent.cc) and the
// plain reference (recurrent_reference.cc): the sizes, the activation of
// each gate per direction, each batch's sequence length, and the index
// arithmetic of both layouts.
//
// Inputs in ONNX order: X, W, R, B?, sequence_lens?, initial_h?, and for
// LSTM initial_c?, P?. Gate order within W, R and B is ONNX's: RNN i; GRU
// z, r, h; LSTM i, o, f, c.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/op_kernel.h"

namespace loom::kernels::recurrent {

enum class CellKind { kRnn, kGru, kLstm };

// Gates per direction (rows of W and R are gates x hidden_size).
int GateCount(CellKind cell);
// Activation functions per direction: RNN f; GRU f, g; LSTM f, g, h.
int ActivationsPerDirection(CellKind cell);

enum class ActivationFn {
  kSigmoid,
  kTanh,
  kRelu,
  kAffine,           // alpha * x + beta
  kLeakyRelu,        // x < 0 ? alpha * x : x
  kThresholdedRelu,  // x >= alpha ? x : 0 (the recurrent ops' definition)
  kScaledTanh,       // alpha * tanh(beta * x)
  kHardSigmoid,      // max(0, min(1, alpha * x + beta))
  kElu,              // x < 0 ? alpha * (exp(x) - 1) : x
  kSoftsign,         // x / (1 + |x|)
  kSoftplus,         // log(1 + exp(x))
};

struct CellActivation {
  ActivationFn fn = ActivationFn::kSigmoid;
  float alpha = 0.0f;
  float beta = 0.0f;
};

// The scalar definition, in double (the reference's oracle).
double EvaluateActivation(const CellActivation& activation, double x);

struct RecurrentProblem {
  CellKind cell = CellKind::kRnn;
  std::string_view op;
  int num_directions = 1;
  bool reverse = false;  // the single direction is "reverse"
  int64_t seq = 0, batch = 0, input_size = 0, hidden = 0;
  int layout = 0;
  bool has_clip = false;
  float clip = 0.0f;
  bool linear_before_reset = false;  // GRU
  bool input_forget = false;         // LSTM
  // num_directions * ActivationsPerDirection(cell), direction-major.
  std::vector<CellActivation> activations;
  // Per batch: sequence_lens, or seq when absent.
  std::vector<int64_t> lengths;
  const Tensor* x_input = nullptr;
  const Tensor* w_input = nullptr;
  const Tensor* r_input = nullptr;
  const Tensor* b_input = nullptr;    // or null
  const Tensor* initial_h = nullptr;  // or null
  const Tensor* initial_c = nullptr;  // LSTM; or null
  const Tensor* p_input = nullptr;    // LSTM peepholes; or null

  int gates() const { return GateCount(cell); }
  // Whether direction d (0 or 1) runs backwards in time.
  bool IsReverse(int d) const { return d == 1 || reverse; }
  const CellActivation& activation(int d, int k) const {
    return activations[static_cast<size_t>(d * ActivationsPerDirection(cell) + k)];
  }
  // Offsets in elements of X[t, b, :], initial state / Y_h[d, b, :] and
  // Y[t, d, b, :] in this layout.
  int64_t XOffset(int64_t t, int64_t b) const {
    return (layout == 0 ? t * batch + b : b * seq + t) * input_size;
  }
  int64_t StateOffset(int d, int64_t b) const {
    return (layout == 0 ? d * batch + b : b * num_directions + d) * hidden;
  }
  int64_t YOffset(int64_t t, int d, int64_t b) const {
    return (layout == 0 ? (t * num_directions + d) * batch + b
                        : (b * seq + t) * num_directions + d) *
           hidden;
  }
  Shape YShape() const;
  Shape StateShape() const;  // Y_h and Y_c
};

// Checks counts, dtypes, shapes and attributes (InvalidArgumentError
// naming the op) and resolves them.
RecurrentProblem ParseRecurrent(CellKind cell, const Attributes& attrs, KernelInputs inputs);

}  // namespace loom::kernels::recurrent
