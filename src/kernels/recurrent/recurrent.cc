// RNN, GRU and LSTM (recurrent.h): one input-projection GEMM per
// direction, then per step one recurrent GEMM (two for GRU without
// linear_before_reset) and the fused gate math over (batch, hidden block).
#include "kernels/recurrent/recurrent.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "kernels/elementwise/activation.h"
#include "kernels/elementwise/elementwise_common.h"
#include "kernels/gemm/gemm.h"
#include "kernels/recurrent/recurrent_problem.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

using recurrent::ActivationFn;
using recurrent::CellActivation;
using recurrent::CellKind;
using recurrent::RecurrentProblem;

// Hidden units per unit of the gate math. The vector math treats every
// element alike (a tail goes through a zero-filled vector), so results do
// not depend on the blocks; 128 keeps common hidden sizes (96, 100, 128) in
// one block, with fewer, longer activation calls (2 x 64 blocks: the LSTM
// classifier's gate math was 20 % of its time).
constexpr int64_t kBlock = 128;

// Directions run one per thread unless there are four threads or more and
// a step's recurrent GEMM has at least this many FLOPs (batch 16, hidden
// 256 for an LSTM: 8.4 M), where splitting each step over all of them wins.
constexpr double kDirectionPerThreadMaxStepFlops = 4.0e6;
// For the cost estimate handed to ParallelFor: small GEMMs and gate math.
constexpr double kRecurrentFlopsPerNs = 20.0;

// In place: data[i] = activation(data[i]) for i < n. The ones Loom's
// vector math has go through it; the rest are scalar loops.
void Activate(const CellActivation& a, float* data, int64_t n, Isa isa) {
  switch (a.fn) {
    case ActivationFn::kSigmoid:
      return ApplyActivation({ActivationKind::kSigmoid}, data, n, isa);
    case ActivationFn::kTanh:
      return ApplyActivation({ActivationKind::kTanh}, data, n, isa);
    case ActivationFn::kRelu:
      return ApplyActivation({ActivationKind::kRelu}, data, n, isa);
    case ActivationFn::kLeakyRelu:
      return ApplyActivation({ActivationKind::kLeakyRelu, a.alpha}, data, n, isa);
    case ActivationFn::kHardSigmoid:
      return ApplyActivation({ActivationKind::kHardSigmoid, a.alpha, a.beta}, data, n, isa);
    case ActivationFn::kScaledTanh:
      for (int64_t i = 0; i < n; ++i) data[i] *= a.beta;
      ApplyActivation({ActivationKind::kTanh}, data, n, isa);
      for (int64_t i = 0; i < n; ++i) data[i] *= a.alpha;
      return;
    case ActivationFn::kAffine:
      for (int64_t i = 0; i < n; ++i) data[i] = a.alpha * data[i] + a.beta;
      return;
    case ActivationFn::kThresholdedRelu:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] >= a.alpha ? data[i] : 0.0f;
      return;
    case ActivationFn::kElu:
      for (int64_t i = 0; i < n; ++i) {
        data[i] = data[i] < 0.0f ? a.alpha * std::expm1(data[i]) : data[i];
      }
      return;
    case ActivationFn::kSoftsign:
      for (int64_t i = 0; i < n; ++i) data[i] = data[i] / (1.0f + std::abs(data[i]));
      return;
    case ActivationFn::kSoftplus:
      for (int64_t i = 0; i < n; ++i) data[i] = std::log1p(std::exp(data[i]));
      return;
  }
}

void Clip(const RecurrentProblem& p, float* data, int64_t n) {
  if (!p.has_clip) return;
  for (int64_t i = 0; i < n; ++i) data[i] = std::clamp(data[i], -p.clip, p.clip);
}

// C[m x n] = A[m x k] B[k x n] (+ bias), B row-major; packed_b if given.
void Gemm(const KernelContext& ctx, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          const PackedGemmMatrix* packed_b, float* c, const float* bias) {
  GemmArgs args;
  args.m = m;
  args.n = n;
  args.k = k;
  args.a = a;
  args.lda = std::max<int64_t>(k, 1);
  args.b = b;
  args.ldb = std::max<int64_t>(n, 1);
  args.c = c;
  args.ldc = std::max<int64_t>(n, 1);
  args.bias = bias;
  args.packed_b = packed_b;
  f32_gemm(args, ctx.pool, ctx.isa);
}

// op(B) = b ([k, n] row-major, or [n, k] when `transpose`) packed as a
// GEMM's B.
PackedGemmMatrix PackWeight(Isa isa, const float* b, int64_t k, int64_t n, bool transpose) {
  GemmArgs args;
  args.k = k;
  args.n = n;
  args.b = b;
  args.ldb = transpose ? k : n;
  args.transpose_b = transpose;
  return PackedGemmMatrix::PackB(args, isa);
}

// A recurrent weight R[d] rows [row0, row0 + n) ([n, hidden]) transposed
// to [hidden, n], and, with `pack`, packed for the step GEMMs. The packed
// form serves only above SGEMM's few-row path (4 rows with B prepacked,
// gemm.cc), which streams the unpacked B.
constexpr int64_t kFewRowsWithPackedB = 4;
struct RecurrentWeight {
  Tensor transposed;
  std::optional<PackedGemmMatrix> packed;

  RecurrentWeight(Isa isa, const float* r, int64_t row0, int64_t n, int64_t hidden, bool pack)
      : transposed(Tensor::uninitialized(DType::kFloat32, Shape({hidden, n}))) {
    float* t = transposed.data<float>();
    for (int64_t row = 0; row < n; ++row) {
      for (int64_t k = 0; k < hidden; ++k) t[k * n + row] = r[(row0 + row) * hidden + k];
    }
    if (pack && hidden > 0 && n > 0) packed.emplace(PackWeight(isa, t, hidden, n, false));
  }
  // The packed form for step GEMMs of `rows` rows, or null.
  const PackedGemmMatrix* packed_for(int64_t rows) const {
    return packed && rows > kFewRowsWithPackedB ? &*packed : nullptr;
  }
};

// One direction's weights in the forms its run reads: R transposed (GRU
// without linear_before_reset: [Rz; Rr] and Rh apart) and packed, and W
// packed as the projection GEMM's B (op(B) = W^T). Built per run from the
// inputs, or once by the prepare stage when W and R are constants.
struct DirectionWeights {
  RecurrentWeight r_main;
  std::optional<RecurrentWeight> r_h;
  std::optional<PackedGemmMatrix> w_packed;
};

// `pack_r`: pack R for the step GEMMs; `pack_w`: pack W for the projection.
DirectionWeights MakeDirectionWeights(Isa isa, CellKind cell, bool linear_before_reset,
                                      const float* w, const float* r, int64_t ni, int64_t nh,
                                      bool pack_r, bool pack_w) {
  const int64_t gh = recurrent::GateCount(cell) * nh;
  const bool gru_split = cell == CellKind::kGru && !linear_before_reset;
  const int64_t first_n = gru_split ? 2 * nh : gh;
  DirectionWeights weights{RecurrentWeight(isa, r, 0, first_n, nh, pack_r), std::nullopt,
                           std::nullopt};
  if (gru_split) weights.r_h.emplace(isa, r, 2 * nh, nh, nh, pack_r);
  if (pack_w && ni > 0 && gh > 0) weights.w_packed.emplace(PackWeight(isa, w, ni, gh, true));
  return weights;
}

struct DirectionOutputs {
  float* y;
  float* y_h;
  float* y_c;  // LSTM only
};

// `prepared`: this direction's weights from the prepare stage, or null
// (built here).
void RunDirection(const KernelContext& ctx, const RecurrentProblem& p, int d,
                  const DirectionOutputs& out, const DirectionWeights* prepared) {
  const int64_t nh = p.hidden, ni = p.input_size, batch = p.batch, seq = p.seq;
  const int64_t gh = p.gates() * nh;
  const bool lstm = p.cell == CellKind::kLstm;
  const bool gru_split = p.cell == CellKind::kGru && !p.linear_before_reset;
  const float* w = p.w_input->data<float>() + d * gh * ni;
  const float* r = p.r_input->data<float>() + d * gh * nh;

  // The bias rides on the step GEMMs: their few-row path initializes C
  // anyway (with the bias, at no extra cost), while the projection GEMM
  // without one writes C outright. Wb + Rb per gate, except GRU's h gate
  // with linear_before_reset, whose Rbh sits inside r * (...) and whose Wbh
  // (wbh) is added in the gate math.
  std::vector<float> bias(static_cast<size_t>(gh), 0.0f);
  std::vector<float> wbh(static_cast<size_t>(nh), 0.0f);
  if (p.b_input) {
    const float* b = p.b_input->data<float>() + d * 2 * gh;
    for (int64_t i = 0; i < gh; ++i) bias[static_cast<size_t>(i)] = b[i] + b[gh + i];
    if (p.cell == CellKind::kGru && p.linear_before_reset) {
      for (int64_t j = 0; j < nh; ++j) {
        bias[static_cast<size_t>(2 * nh + j)] = b[gh + 2 * nh + j];
        wbh[static_cast<size_t>(j)] = b[2 * nh + j];
      }
    }
  }
  const float* peep = p.p_input ? p.p_input->data<float>() + d * 3 * nh : nullptr;

  const int64_t max_len = *std::max_element(p.lengths.begin(), p.lengths.end());
  // GRU without linear_before_reset multiplies r into H before the h
  // gate's GEMM, so its R is split: [Rz; Rr] and Rh.
  const int64_t first_n = gru_split ? 2 * nh : gh;
  std::optional<DirectionWeights> own_weights;
  if (prepared == nullptr) {
    // R packed when more than one step amortizes it; W as the GEMM packs it.
    own_weights.emplace(MakeDirectionWeights(ctx.isa, p.cell, p.linear_before_reset, w, r, ni, nh,
                                             max_len > 1 && batch > kFewRowsWithPackedB, false));
  }
  const DirectionWeights& weights = prepared != nullptr ? *prepared : *own_weights;
  const RecurrentWeight& r_main = weights.r_main;
  const RecurrentWeight* r_h = weights.r_h ? &*weights.r_h : nullptr;

  // P = X W^T for every (t, b), rows in X's order.
  Tensor projection = Tensor::uninitialized(DType::kFloat32, Shape({seq * batch, gh}));
  if (seq > 0) {
    GemmArgs args;
    args.m = seq * batch;
    args.n = gh;
    args.k = ni;
    args.a = p.x_input->data<float>();
    args.lda = std::max<int64_t>(ni, 1);
    args.b = w;
    args.ldb = std::max<int64_t>(ni, 1);
    args.transpose_b = true;
    args.packed_b = weights.w_packed ? &*weights.w_packed : nullptr;
    args.c = projection.data<float>();
    args.ldc = gh;
    f32_gemm(args, ctx.pool, ctx.isa);
  }
  const float* proj = projection.data<float>();

  // Rows of the step GEMMs: three rows go to SGEMM's few-row path as a
  // group of two and one, reading R twice; a zero fourth row makes it one
  // group of four (GRU model, batch 3, hidden 100: 27 % of the time was the
  // second pass). Its results are never read.
  const int64_t gemm_rows = batch == 3 ? 4 : batch;
  Tensor h_state(DType::kFloat32, Shape({gemm_rows, nh}));
  Tensor c_state = Tensor::uninitialized(DType::kFloat32, Shape({lstm ? batch : 0, nh}));
  Tensor rec = Tensor::uninitialized(DType::kFloat32, Shape({gemm_rows, first_n}));
  Tensor reset_h(DType::kFloat32, Shape({gru_split ? gemm_rows : 0, nh}));
  Tensor rec_h = Tensor::uninitialized(DType::kFloat32, Shape({gru_split ? gemm_rows : 0, nh}));
  float* h = h_state.data<float>();
  float* c = c_state.data<float>();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < nh; ++j) {
      h[b * nh + j] = p.initial_h ? p.initial_h->data<float>()[p.StateOffset(d, b) + j] : 0.0f;
      if (lstm) {
        c[b * nh + j] = p.initial_c ? p.initial_c->data<float>()[p.StateOffset(d, b) + j] : 0.0f;
      }
    }
  }

  const int64_t blocks = (nh + kBlock - 1) / kBlock;
  const CellActivation& f = p.activation(d, 0);
  const CellActivation& g = p.activation(d, p.cell == CellKind::kRnn ? 0 : 1);
  const CellActivation& h_act = p.activation(d, lstm ? 2 : 0);
  const double cost = static_cast<double>(std::min(nh, kBlock) * p.gates()) * 8.0;

  for (int64_t s = 0; s < max_len; ++s) {
    // Each unit (b, block) of the gate math: calls fn(t, x-projection row,
    // j0, n) when batch b is inside its sequence at step s.
    auto for_each_unit = [&](auto&& fn) {
      threading::ParallelFor(ctx.pool, batch * blocks, cost, [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
          const int64_t b = unit / blocks;
          const int64_t j0 = (unit % blocks) * kBlock;
          const int64_t len = p.lengths[static_cast<size_t>(b)];
          if (s >= len) continue;
          const int64_t t = p.IsReverse(d) ? len - 1 - s : s;
          const int64_t row = p.layout == 0 ? t * batch + b : b * seq + t;
          fn(b, t, proj + row * gh, j0, std::min(kBlock, nh - j0));
        }
      });
    };
    float* rec_data = rec.data<float>();
    Gemm(ctx, gemm_rows, first_n, nh, h, r_main.transposed.data<float>(), r_main.packed_for(batch),
         rec_data, bias.data());

    if (p.cell == CellKind::kRnn) {
      for_each_unit([&](int64_t b, int64_t t, const float* px, int64_t j0, int64_t n) {
        float* hb = h + b * nh + j0;
        const float* pr = rec_data + b * gh + j0;
        for (int64_t j = 0; j < n; ++j) hb[j] = px[j0 + j] + pr[j];
        Clip(p, hb, n);
        Activate(f, hb, n, ctx.isa);
        std::memcpy(out.y + p.YOffset(t, d, b) + j0, hb, static_cast<size_t>(n) * sizeof(float));
      });
    } else if (p.cell == CellKind::kGru && !gru_split) {
      for_each_unit([&](int64_t b, int64_t t, const float* px, int64_t j0, int64_t n) {
        float z[kBlock], rg[kBlock], cand[kBlock];
        const float* pr = rec_data + b * gh;
        for (int64_t j = 0; j < n; ++j) {
          z[j] = px[j0 + j] + pr[j0 + j];
          rg[j] = px[nh + j0 + j] + pr[nh + j0 + j];
        }
        Clip(p, z, n);
        Clip(p, rg, n);
        Activate(f, z, n, ctx.isa);
        Activate(f, rg, n, ctx.isa);
        for (int64_t j = 0; j < n; ++j) {
          cand[j] = px[2 * nh + j0 + j] + wbh[j0 + j] + rg[j] * pr[2 * nh + j0 + j];
        }
        Clip(p, cand, n);
        Activate(g, cand, n, ctx.isa);
        float* hb = h + b * nh + j0;
        for (int64_t j = 0; j < n; ++j) hb[j] = (1.0f - z[j]) * cand[j] + z[j] * hb[j];
        std::memcpy(out.y + p.YOffset(t, d, b) + j0, hb, static_cast<size_t>(n) * sizeof(float));
      });
    } else if (gru_split) {
      // z overwrites its pre-activation in `rec`; r * H goes to reset_h
      // (zero for batches past their length, which the next GEMM reads).
      float* rh = reset_h.data<float>();
      threading::ParallelFor(ctx.pool, batch, 1.0, [&](int64_t begin, int64_t end) {
        for (int64_t b = begin; b < end; ++b) {
          if (s >= p.lengths[static_cast<size_t>(b)]) {
            std::fill(rh + b * nh, rh + (b + 1) * nh, 0.0f);
          }
        }
      });
      for_each_unit([&](int64_t b, int64_t /*t*/, const float* px, int64_t j0, int64_t n) {
        float rg[kBlock];
        float* z = rec_data + b * first_n + j0;
        const float* pr = rec_data + b * first_n + nh + j0;
        for (int64_t j = 0; j < n; ++j) {
          z[j] += px[j0 + j];
          rg[j] = px[nh + j0 + j] + pr[j];
        }
        Clip(p, z, n);
        Clip(p, rg, n);
        Activate(f, z, n, ctx.isa);
        Activate(f, rg, n, ctx.isa);
        const float* hb = h + b * nh + j0;
        for (int64_t j = 0; j < n; ++j) rh[b * nh + j0 + j] = rg[j] * hb[j];
      });
      float* rec2 = rec_h.data<float>();
      Gemm(ctx, gemm_rows, nh, nh, rh, r_h->transposed.data<float>(), r_h->packed_for(batch), rec2,
           bias.data() + 2 * nh);
      for_each_unit([&](int64_t b, int64_t t, const float* px, int64_t j0, int64_t n) {
        float cand[kBlock];
        const float* z = rec_data + b * first_n + j0;
        for (int64_t j = 0; j < n; ++j) cand[j] = px[2 * nh + j0 + j] + rec2[b * nh + j0 + j];
        Clip(p, cand, n);
        Activate(g, cand, n, ctx.isa);
        float* hb = h + b * nh + j0;
        for (int64_t j = 0; j < n; ++j) hb[j] = (1.0f - z[j]) * cand[j] + z[j] * hb[j];
        std::memcpy(out.y + p.YOffset(t, d, b) + j0, hb, static_cast<size_t>(n) * sizeof(float));
      });
    } else {
      for_each_unit([&](int64_t b, int64_t t, const float* px, int64_t j0, int64_t n) {
        // Gates i, f, o side by side in `ifo`, so one call of the vector
        // math activates them all (i and f when o needs the new cell state
        // for its peephole; i alone with input_forget): 2-3 calls a block
        // instead of 5, each on longer spans.
        float ifo[3 * kBlock], gc[kBlock], hc[kBlock];
        float* gi = ifo;
        float* gf = ifo + n;
        float* go = ifo + 2 * n;
        const float* pr = rec_data + b * gh;
        float* cb = c + b * nh + j0;
        for (int64_t j = 0; j < n; ++j) {
          gi[j] = px[j0 + j] + pr[j0 + j];
          gf[j] = px[2 * nh + j0 + j] + pr[2 * nh + j0 + j];
          go[j] = px[nh + j0 + j] + pr[nh + j0 + j];
          gc[j] = px[3 * nh + j0 + j] + pr[3 * nh + j0 + j];
        }
        if (peep) {
          for (int64_t j = 0; j < n; ++j) {
            gi[j] += peep[j0 + j] * cb[j];
            gf[j] += peep[2 * nh + j0 + j] * cb[j];
          }
        }
        const bool o_now = peep == nullptr;  // o's pre-activation is final
        Clip(p, ifo, o_now ? 3 * n : 2 * n);
        if (p.input_forget) {
          Activate(f, gi, n, ctx.isa);
          for (int64_t j = 0; j < n; ++j) gf[j] = 1.0f - gi[j];
          if (o_now) Activate(f, go, n, ctx.isa);
        } else {
          Activate(f, ifo, o_now ? 3 * n : 2 * n, ctx.isa);
        }
        Clip(p, gc, n);
        Activate(g, gc, n, ctx.isa);
        for (int64_t j = 0; j < n; ++j) {
          cb[j] = gf[j] * cb[j] + gi[j] * gc[j];
          hc[j] = cb[j];
        }
        if (!o_now) {
          for (int64_t j = 0; j < n; ++j) go[j] += peep[nh + j0 + j] * cb[j];
          Clip(p, go, n);
          Activate(f, go, n, ctx.isa);
        }
        Activate(h_act, hc, n, ctx.isa);
        float* hb = h + b * nh + j0;
        for (int64_t j = 0; j < n; ++j) hb[j] = go[j] * hc[j];
        std::memcpy(out.y + p.YOffset(t, d, b) + j0, hb, static_cast<size_t>(n) * sizeof(float));
      });
    }
  }
  for (int64_t b = 0; b < batch; ++b) {
    std::memcpy(out.y_h + p.StateOffset(d, b), h + b * nh, static_cast<size_t>(nh) * sizeof(float));
    if (lstm) {
      std::memcpy(out.y_c + p.StateOffset(d, b), c + b * nh,
                  static_cast<size_t>(nh) * sizeof(float));
    }
  }
}

// Every direction's weights, prepared once from constant W and R.
struct PreparedWeights {
  int64_t directions, gates_hidden, input_size, hidden;
  std::vector<DirectionWeights> per_direction;
  // Whether they were made for this problem's weight shapes.
  bool Fits(const RecurrentProblem& p) const {
    return p.num_directions == directions && p.gates() * p.hidden == gates_hidden &&
           p.input_size == input_size && p.hidden == hidden;
  }
};

std::vector<Tensor> RunRecurrentF32(CellKind cell, const KernelContext& ctx,
                                    const Attributes& attrs, KernelInputs inputs,
                                    const PreparedWeights* prepared = nullptr) {
  const RecurrentProblem p = recurrent::ParseRecurrent(cell, attrs, inputs);
  if (prepared != nullptr && !prepared->Fits(p)) prepared = nullptr;
  auto weights_of = [&](int64_t d) {
    return prepared != nullptr ? &prepared->per_direction[static_cast<size_t>(d)] : nullptr;
  };
  const bool lstm = cell == CellKind::kLstm;
  // Y is zero past each sequence's length: zero-filled when some sequence
  // is shorter, else every element is written.
  const bool all_full =
      std::all_of(p.lengths.begin(), p.lengths.end(), [&](int64_t len) { return len == p.seq; });
  Tensor y = all_full ? Tensor::uninitialized(DType::kFloat32, p.YShape())
                      : Tensor(DType::kFloat32, p.YShape());
  Tensor y_h = Tensor::uninitialized(DType::kFloat32, p.StateShape());
  Tensor y_c = Tensor::uninitialized(DType::kFloat32, lstm ? p.StateShape() : Shape({0}));
  if (p.batch > 0 && p.hidden > 0) {
    const DirectionOutputs out{y.data<float>(), y_h.data<float>(), y_c.data<float>()};
    // The two directions are independent recurrences. Each on its own
    // thread, its GEMMs and gate math inline, they need no fork-join per
    // step; splitting every step over the threads instead pays two or three
    // per step, which small steps do not repay (a 2-layer bidirectional
    // LSTM, hidden 96, batch 4, 50 steps: two threads were no faster than
    // one). With more threads and large steps, splitting each step uses
    // them all. Results are the same either way (fixed blocks and GEMM
    // units, whatever the thread count).
    const int threads = threading::MaxParallelism(ctx.pool);
    const double step_flops =
        2.0 * static_cast<double>(p.batch * p.hidden) * static_cast<double>(p.gates() * p.hidden);
    if (p.num_directions == 2 && threads >= 2 &&
        (threads < 4 || step_flops < kDirectionPerThreadMaxStepFlops)) {
      const KernelContext inline_ctx{nullptr, ctx.isa};
      const double direction_ns =
          static_cast<double>(p.seq) *
          (step_flops + 2.0 * static_cast<double>(p.batch * p.input_size * p.gates() * p.hidden)) /
          kRecurrentFlopsPerNs;
      threading::ParallelFor(ctx.pool, 2, direction_ns, [&](int64_t begin, int64_t end) {
        for (int64_t d = begin; d < end; ++d) {
          RunDirection(inline_ctx, p, static_cast<int>(d), out, weights_of(d));
        }
      });
    } else {
      for (int d = 0; d < p.num_directions; ++d) RunDirection(ctx, p, d, out, weights_of(d));
    }
  }
  if (lstm) return {y, y_h, y_c};
  return {y, y_h};
}

// float16 and bfloat16 are storage types: every float input is widened to
// float32 (exact), the layer runs there and each output is rounded back
// once.
std::vector<Tensor> RunRecurrent(CellKind cell, const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  const Tensor* x = inputs.empty() ? nullptr : inputs[0];
  if (x == nullptr || (x->dtype() != DType::kFloat16 && x->dtype() != DType::kBFloat16)) {
    return RunRecurrentF32(cell, ctx, attrs, inputs);
  }
  const DType dtype = x->dtype();
  std::vector<Tensor> widened(inputs.size());
  std::vector<const Tensor*> pointers(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) continue;
    pointers[i] = inputs[i];
    if (i == 4) continue;  // sequence_lens
    if (inputs[i]->dtype() != dtype) {
      constexpr const char* kNames[] = {"X",         "W",         "R", "B", "sequence_lens",
                                        "initial_h", "initial_c", "P"};
      ThrowKernelError(cell == CellKind::kRnn   ? "RNN"
                       : cell == CellKind::kGru ? "GRU"
                                                : "LSTM",
                       "input '" + std::string(kNames[std::min<size_t>(i, 7)]) + "' is " +
                           std::string(dtype_name(inputs[i]->dtype())) + ", X is " +
                           std::string(dtype_name(dtype)));
    }
    widened[i] = elementwise::ConvertTensor(*inputs[i], DType::kFloat32);
    pointers[i] = &widened[i];
  }
  std::vector<Tensor> outputs = RunRecurrentF32(cell, ctx, attrs, KernelInputs(pointers));
  for (Tensor& output : outputs) output = elementwise::ConvertTensor(output, dtype);
  return outputs;
}

// The prepare stage's kernel: the run of RunRecurrentF32 with the weights
// of `prepared` (float32 X; other dtypes take the plain path, which widens
// them).
class PreparedRecurrentKernel : public PreparedKernel {
 public:
  PreparedRecurrentKernel(CellKind cell, Attributes attrs, PreparedWeights weights)
      : cell_(cell), attrs_(std::move(attrs)), weights_(std::move(weights)) {}
  std::vector<Tensor> Run(const KernelContext& ctx, KernelInputs inputs) const override {
    const Tensor* x = inputs.empty() ? nullptr : inputs[0];
    if (x == nullptr || x->dtype() != DType::kFloat32) {
      return RunRecurrent(cell_, ctx, attrs_, inputs);
    }
    return RunRecurrentF32(cell_, ctx, attrs_, inputs, &weights_);
  }
  const char* kind() const override { return "prepared recurrent"; }

 private:
  CellKind cell_;
  Attributes attrs_;
  PreparedWeights weights_;
};

// W (input 1) and R (input 2) constant float32 of consistent shapes:
// transposes and packs them once. Anything else leaves the run to build
// them (and to report what is wrong).
std::unique_ptr<PreparedKernel> PrepareRecurrent(CellKind cell, const PrepareArgs& args) {
  const Tensor* w = args.constant(1);
  const Tensor* r = args.constant(2);
  if (w == nullptr || r == nullptr || w->dtype() != DType::kFloat32 ||
      r->dtype() != DType::kFloat32 || w->shape().rank() != 3 || r->shape().rank() != 3) {
    return nullptr;
  }
  const int64_t directions = w->shape().dim(0), gh = w->shape().dim(1), ni = w->shape().dim(2);
  const int64_t nh = r->shape().dim(2);
  const int gates = recurrent::GateCount(cell);
  if (directions < 1 || directions > 2 || nh <= 0 || gh != gates * nh ||
      r->shape().dim(0) != directions || r->shape().dim(1) != gh) {
    return nullptr;
  }
  const bool linear_before_reset =
      cell == CellKind::kGru && args.attrs.get_int("linear_before_reset", 0) != 0;
  PreparedWeights weights{directions, gh, ni, nh, {}};
  for (int64_t d = 0; d < directions; ++d) {
    weights.per_direction.push_back(MakeDirectionWeights(args.isa, cell, linear_before_reset,
                                                         w->data<float>() + d * gh * ni,
                                                         r->data<float>() + d * gh * nh, ni, nh,
                                                         /*pack_r=*/true, /*pack_w=*/true));
  }
  return std::make_unique<PreparedRecurrentKernel>(cell, args.attrs, std::move(weights));
}

}  // namespace

std::unique_ptr<PreparedKernel> PrepareRnn(const PrepareArgs& args) {
  return PrepareRecurrent(CellKind::kRnn, args);
}
std::unique_ptr<PreparedKernel> PrepareGru(const PrepareArgs& args) {
  return PrepareRecurrent(CellKind::kGru, args);
}
std::unique_ptr<PreparedKernel> PrepareLstm(const PrepareArgs& args) {
  return PrepareRecurrent(CellKind::kLstm, args);
}

std::vector<Tensor> RnnKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  return RunRecurrent(CellKind::kRnn, ctx, attrs, inputs);
}

std::vector<Tensor> GruKernel(const KernelContext& ctx, const Attributes& attrs,
                              KernelInputs inputs) {
  return RunRecurrent(CellKind::kGru, ctx, attrs, inputs);
}

std::vector<Tensor> LstmKernel(const KernelContext& ctx, const Attributes& attrs,
                               KernelInputs inputs) {
  return RunRecurrent(CellKind::kLstm, ctx, attrs, inputs);
}

}  // namespace loom::kernels
