#include "kernels/recurrent/recurrent_reference.h"

#include <algorithm>

namespace loom::kernels::recurrent {
namespace {

double Clip(const RecurrentProblem& p, double x) {
  return p.has_clip ? std::clamp(x, -static_cast<double>(p.clip), static_cast<double>(p.clip)) : x;
}

// Row `row` of a row-major matrix with n columns (W[d] or R[d]) times v.
double Dot(const float* matrix, int64_t row, int64_t n, const double* v) {
  double sum = 0.0;
  for (int64_t k = 0; k < n; ++k) sum += static_cast<double>(matrix[row * n + k]) * v[k];
  return sum;
}

}  // namespace

std::vector<Tensor> RecurrentReference(CellKind cell, const Attributes& attrs,
                                       KernelInputs inputs) {
  const RecurrentProblem p = ParseRecurrent(cell, attrs, inputs);
  const int64_t nh = p.hidden, ni = p.input_size, gates = p.gates();
  Tensor y(DType::kFloat32, p.YShape());
  Tensor y_h(DType::kFloat32, p.StateShape());
  Tensor y_c(DType::kFloat32, p.StateShape());
  const float* x = p.x_input->data<float>();
  for (int d = 0; d < p.num_directions; ++d) {
    const float* w = p.w_input->data<float>() + d * gates * nh * ni;
    const float* r = p.r_input->data<float>() + d * gates * nh * nh;
    std::vector<double> wb(static_cast<size_t>(gates * nh), 0.0), rb = wb;
    if (p.b_input) {
      const float* b = p.b_input->data<float>() + d * 2 * gates * nh;
      for (int64_t i = 0; i < gates * nh; ++i) {
        wb[static_cast<size_t>(i)] = b[i];
        rb[static_cast<size_t>(i)] = b[gates * nh + i];
      }
    }
    std::vector<double> peep(static_cast<size_t>(3 * nh), 0.0);
    if (p.p_input) {
      for (int64_t i = 0; i < 3 * nh; ++i) {
        peep[static_cast<size_t>(i)] = p.p_input->data<float>()[d * 3 * nh + i];
      }
    }
    const CellActivation& f = p.activation(d, 0);
    const CellActivation& g = p.activation(d, cell == CellKind::kRnn ? 0 : 1);
    const CellActivation& h_act = p.activation(d, cell == CellKind::kLstm ? 2 : 0);
    for (int64_t b = 0; b < p.batch; ++b) {
      std::vector<double> h(static_cast<size_t>(nh), 0.0), c = h;
      for (int64_t j = 0; j < nh; ++j) {
        if (p.initial_h)
          h[static_cast<size_t>(j)] = p.initial_h->data<float>()[p.StateOffset(d, b) + j];
        if (p.initial_c)
          c[static_cast<size_t>(j)] = p.initial_c->data<float>()[p.StateOffset(d, b) + j];
      }
      const int64_t len = p.lengths[static_cast<size_t>(b)];
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = p.IsReverse(d) ? len - 1 - s : s;
        std::vector<double> xt(static_cast<size_t>(ni));
        for (int64_t i = 0; i < ni; ++i) xt[static_cast<size_t>(i)] = x[p.XOffset(t, b) + i];
        // Input and recurrent parts of gate row `row` (bias included).
        auto in = [&](int64_t row) {
          return Dot(w, row, ni, xt.data()) + wb[static_cast<size_t>(row)];
        };
        auto rec = [&](int64_t row, const double* v) {
          return Dot(r, row, nh, v) + rb[static_cast<size_t>(row)];
        };
        std::vector<double> h_new(static_cast<size_t>(nh)), c_new = h_new;
        if (cell == CellKind::kRnn) {
          for (int64_t j = 0; j < nh; ++j) {
            h_new[static_cast<size_t>(j)] =
                EvaluateActivation(f, Clip(p, in(j) + rec(j, h.data())));
          }
        } else if (cell == CellKind::kGru) {
          std::vector<double> z(static_cast<size_t>(nh)), rg = z, rh = z;
          for (int64_t j = 0; j < nh; ++j) {
            z[static_cast<size_t>(j)] = EvaluateActivation(f, Clip(p, in(j) + rec(j, h.data())));
            rg[static_cast<size_t>(j)] =
                EvaluateActivation(f, Clip(p, in(nh + j) + rec(nh + j, h.data())));
            rh[static_cast<size_t>(j)] = rg[static_cast<size_t>(j)] * h[static_cast<size_t>(j)];
          }
          for (int64_t j = 0; j < nh; ++j) {
            const auto u = static_cast<size_t>(j);
            const double pre = p.linear_before_reset
                                   ? in(2 * nh + j) + rg[u] * rec(2 * nh + j, h.data())
                                   : in(2 * nh + j) + rec(2 * nh + j, rh.data());
            const double candidate = EvaluateActivation(g, Clip(p, pre));
            h_new[u] = (1.0 - z[u]) * candidate + z[u] * h[u];
          }
        } else {
          for (int64_t j = 0; j < nh; ++j) {
            const auto u = static_cast<size_t>(j);
            const double i_gate =
                EvaluateActivation(f, Clip(p, in(j) + rec(j, h.data()) + peep[u] * c[u]));
            const double f_gate =
                p.input_forget ? 1.0 - i_gate
                               : EvaluateActivation(
                                     f, Clip(p, in(2 * nh + j) + rec(2 * nh + j, h.data()) +
                                                    peep[static_cast<size_t>(2 * nh + j)] * c[u]));
            const double c_gate =
                EvaluateActivation(g, Clip(p, in(3 * nh + j) + rec(3 * nh + j, h.data())));
            c_new[u] = f_gate * c[u] + i_gate * c_gate;
            const double o_gate =
                EvaluateActivation(f, Clip(p, in(nh + j) + rec(nh + j, h.data()) +
                                                  peep[static_cast<size_t>(nh + j)] * c_new[u]));
            h_new[u] = o_gate * EvaluateActivation(h_act, c_new[u]);
          }
          c = c_new;
        }
        h = h_new;
        for (int64_t j = 0; j < nh; ++j) {
          y.data<float>()[p.YOffset(t, d, b) + j] = static_cast<float>(h[static_cast<size_t>(j)]);
        }
      }
      for (int64_t j = 0; j < nh; ++j) {
        y_h.data<float>()[p.StateOffset(d, b) + j] = static_cast<float>(h[static_cast<size_t>(j)]);
        y_c.data<float>()[p.StateOffset(d, b) + j] = static_cast<float>(c[static_cast<size_t>(j)]);
      }
    }
  }
  if (cell == CellKind::kLstm) return {y, y_h, y_c};
  return {y, y_h};
}

}  // namespace loom::kernels::recurrent
