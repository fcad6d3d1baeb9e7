// LoomAttention's driver (attention.h): checks, the (batch, head, query
// block) units, the online softmax between the two micro-kernels.
#include "kernels/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/attention/attention_geometry.h"
#include "kernels/attention/attention_micro_kernel.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

int64_t RoundUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// Guessed cost of one score: the two products' multiply-adds over D and Dv
// (~0.05 ns each vectorized) and one exp (~1.5 ns; ~5 ns through libm).
double CostPerScoreNs(Isa isa, const AttentionGeometry& g) {
  const double exp_ns = isa == Isa::kPortable ? 5.0 : 1.5;
  const double mac_ns = isa == Isa::kPortable ? 0.25 : 0.05;
  return exp_ns + mac_ns * static_cast<double>(g.depth + g.v_depth);
}

// One thread's working set for a unit: a key block of V, the score block
// and the output block with its running max and sum.
struct Scratch {
  std::vector<float> v, scores, acc, max, sum;
};

class AttentionRun {
 public:
  AttentionRun(const KernelContext& ctx, const AttentionGeometry& g, const Tensor& q,
               const Tensor& k, const Tensor& v, Tensor& y)
      : g_(g),
        mk_(AttentionMicroKernelsFor(ctx.isa)),
        q_(q.data<float>()),
        k_(k.data<float>()),
        v_(v.data<float>()),
        y_(y.data<float>()),
        mask_f_(g.mask != nullptr && !g.bool_mask ? g.mask->data<float>() : nullptr),
        mask_b_(g.mask != nullptr && g.bool_mask ? g.mask->data<bool>() : nullptr),
        key_pad_(RoundUp(kAttentionKeyBlock, mk_.lanes)),
        v_pad_(RoundUp(g.v_depth, mk_.lanes)),
        // V's rows are read in place when they are whole vectors.
        v_in_place_(g.v_depth == v_pad_),
        q_blocks_((g.q_len + kAttentionQueryBlock - 1) / kAttentionQueryBlock),
        k_blocks_((g.k_len + kAttentionKeyBlock - 1) / kAttentionKeyBlock),
        packed_keys_(static_cast<size_t>(g.batch * g.kv_heads * k_blocks_ * g.depth * key_pad_)) {}

  int64_t units() const { return g_.batch * g_.heads * q_blocks_; }
  int64_t key_blocks() const { return g_.batch * g_.kv_heads * k_blocks_; }

  // Packs key blocks [begin, end) of all (batch, K head): each query block
  // reads every key block, so K is transposed once, not once per unit (nor
  // per query head sharing it).
  void PackKeyBlocks(int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t bh = u / k_blocks_;
      const int64_t k0 = (u % k_blocks_) * kAttentionKeyBlock;
      const int64_t keys = std::min(kAttentionKeyBlock, g_.k_len - k0);
      PackKeys(bh / g_.kv_heads, bh % g_.kv_heads, k0, keys, RoundUp(keys, mk_.lanes),
               packed_keys_.data() + u * g_.depth * key_pad_);
    }
  }

  void RunUnits(int64_t begin, int64_t end) const {
    Scratch s;
    s.v.resize(static_cast<size_t>(v_in_place_ ? 0 : kAttentionKeyBlock * v_pad_));
    s.scores.resize(static_cast<size_t>(kAttentionQueryBlock * key_pad_));
    s.acc.resize(static_cast<size_t>(kAttentionQueryBlock * v_pad_));
    s.max.resize(kAttentionQueryBlock);
    s.sum.resize(kAttentionQueryBlock);
    for (int64_t u = begin; u < end; ++u) {
      const int64_t bh = u / q_blocks_;
      const int64_t q0 = (u % q_blocks_) * kAttentionQueryBlock;
      RunUnit(bh / g_.heads, bh % g_.heads, q0, std::min(kAttentionQueryBlock, g_.q_len - q0), s);
    }
  }

 private:
  void RunUnit(int64_t b, int64_t h, int64_t q0, int64_t rows, Scratch& s) const {
    const float* q = q_ + b * g_.q.batch + h * g_.q.head + q0 * g_.q.seq;
    std::fill(s.acc.begin(), s.acc.begin() + rows * v_pad_, 0.0f);
    std::fill(s.max.begin(), s.max.begin() + rows, -kInfinity);
    std::fill(s.sum.begin(), s.sum.begin() + rows, 0.0f);
    // Causal: query i sees keys j <= i + offset, so the block's last row
    // sees keys below q0 + rows + offset.
    const int64_t key_end = g_.causal ? std::min(g_.k_len, q0 + rows + g_.causal_offset) : g_.k_len;
    const int64_t kv_h = g_.KvHead(h);
    for (int64_t k0 = 0; k0 < key_end; k0 += kAttentionKeyBlock) {
      const int64_t keys = std::min(kAttentionKeyBlock, key_end - k0);
      // The packed block's width: its keys up to Sk, not up to key_end.
      const int64_t cols = RoundUp(std::min(kAttentionKeyBlock, g_.k_len - k0), mk_.lanes);
      const float* kt =
          packed_keys_.data() +
          ((b * g_.kv_heads + kv_h) * k_blocks_ + k0 / kAttentionKeyBlock) * g_.depth * key_pad_;
      const float* v = PackValues(b, kv_h, k0, keys, s.v.data());
      const int64_t v_stride = v_in_place_ ? g_.v.seq : v_pad_;
      mk_.scores(q, g_.q.seq, rows, g_.depth, kt, cols, s.scores.data(), key_pad_);
      for (int64_t r = 0; r < rows; ++r) {
        SoftmaxStep(b, h, q0 + r, k0, keys, s.scores.data() + r * key_pad_, s.max[r], s.sum[r],
                    s.acc.data() + r * v_pad_);
      }
      mk_.accumulate(s.scores.data(), key_pad_, rows, keys, v, v_stride, v_pad_, s.acc.data(),
                     v_pad_);
    }
    for (int64_t r = 0; r < rows; ++r) {
      float* y = y_ + b * g_.y.batch + h * g_.y.head + (q0 + r) * g_.y.seq;
      const float* acc = s.acc.data() + r * v_pad_;
      if (s.max[r] == -kInfinity) {
        // Every score was -inf: the unfused Softmax gives NaN here.
        std::fill(y, y + g_.v_depth, std::numeric_limits<float>::quiet_NaN());
        continue;
      }
      const float inverse = 1.0f / s.sum[r];
      for (int64_t c = 0; c < g_.v_depth; ++c) y[c] = acc[c] * inverse;
    }
  }

  // kt[d * cols + j] = K[k0 + j][d] of K head h; columns keys..cols are zero. Row by
  // row of kt: contiguous stores, strided loads (two load ports, one store).
  void PackKeys(int64_t b, int64_t h, int64_t k0, int64_t keys, int64_t cols, float* kt) const {
    const float* k = k_ + b * g_.k.batch + h * g_.k.head + k0 * g_.k.seq;
    const int64_t stride = g_.k.seq;
    for (int64_t d = 0; d < g_.depth; ++d) {
      float* __restrict out = kt + d * cols;
      for (int64_t j = 0; j < keys; ++j) out[j] = k[j * stride + d];
      std::fill(out + keys, out + cols, 0.0f);
    }
  }

  // V head h's rows k0..k0+keys: in place (g_.v.seq apart) when possible, else
  // copied into `scratch`, v_pad_ floats apart and zero-padded.
  const float* PackValues(int64_t b, int64_t h, int64_t k0, int64_t keys, float* scratch) const {
    const float* v = v_ + b * g_.v.batch + h * g_.v.head + k0 * g_.v.seq;
    if (v_in_place_) return v;
    for (int64_t j = 0; j < keys; ++j) {
      float* out = scratch + j * v_pad_;
      std::memcpy(out, v + j * g_.v.seq, static_cast<size_t>(g_.v_depth) * sizeof(float));
      std::fill(out + g_.v_depth, out + v_pad_, 0.0f);
    }
    return scratch;
  }

  // One query row of a key block: scale and mask the scores and fold them
  // into the running max and sum (softmax_row). Plain rows (no mask, or an
  // additive one varying by key; off the causal diagonal) go straight to
  // softmax_row; the others are scaled and masked here first.
  void SoftmaxStep(int64_t b, int64_t h, int64_t i, int64_t k0, int64_t keys, float* scores,
                   float& max, float& sum, float* acc) const {
    const int64_t visible =
        g_.causal ? std::clamp<int64_t>(i + g_.causal_offset - k0 + 1, 0, keys) : keys;
    const bool plain_mask = mask_b_ == nullptr && (mask_f_ == nullptr || g_.mask_key_stride == 1);
    if (plain_mask && visible == keys) {
      const float* add =
          mask_f_ != nullptr ? mask_f_ + g_.MaskOffset(b, h, i) + k0 * g_.mask_key_stride : nullptr;
      mk_.softmax_row(scores, keys, g_.scale, add, &max, &sum, acc, v_pad_);
      return;
    }
    const float scale = g_.scale;
    float* __restrict x = scores;
    if (mask_f_ != nullptr) {
      const float* m = mask_f_ + g_.MaskOffset(b, h, i) + k0 * g_.mask_key_stride;
      const int64_t step = g_.mask_key_stride;
      for (int64_t j = 0; j < keys; ++j) x[j] = x[j] * scale + m[j * step];
    } else if (mask_b_ != nullptr) {
      const bool* m = mask_b_ + g_.MaskOffset(b, h, i) + k0 * g_.mask_key_stride;
      const int64_t step = g_.mask_key_stride;
      const float fill = g_.mask_fill;
      for (int64_t j = 0; j < keys; ++j) x[j] = m[j * step] ? x[j] * scale : fill;
    } else {
      for (int64_t j = 0; j < keys; ++j) x[j] *= scale;
    }
    // Causal: keys past i + offset (j > i + offset - k0 in this block) are excluded.
    std::fill(x + visible, x + keys, -kInfinity);
    mk_.softmax_row(x, keys, 1.0f, nullptr, &max, &sum, acc, v_pad_);
  }

  const AttentionGeometry& g_;
  const AttentionMicroKernels& mk_;
  const float* q_;
  const float* k_;
  const float* v_;
  float* y_;
  const float* mask_f_;
  const bool* mask_b_;
  const int64_t key_pad_;  // score block row stride
  const int64_t v_pad_;    // Dv rounded up to whole vectors
  const bool v_in_place_;
  const int64_t q_blocks_;
  const int64_t k_blocks_;
  // Per (batch, head, key block): [D, cols] of Kᵀ, D * key_pad_ floats apart.
  std::vector<float> packed_keys_;
};

}  // namespace

std::vector<Tensor> AttentionKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "LoomAttention";
  CheckInputCount(kOp, inputs, 3, 4);
  const Tensor& q = RequiredInput(kOp, inputs, 0, "Q");
  const Tensor& k = RequiredInput(kOp, inputs, 1, "K");
  const Tensor& v = RequiredInput(kOp, inputs, 2, "V");
  const Tensor* mask = OptionalInput(inputs, 3);
  if (!IsaSupported(ctx.isa)) {
    ThrowKernelError(kOp, "ISA " + std::string(IsaName(ctx.isa)) + " is not supported by this CPU");
  }
  const AttentionGeometry g = ReadAttentionGeometry(attrs, q, k, v, mask);
  if (g.k_len == 0) return {Tensor(DType::kFloat32, g.y_shape)};  // an empty sum: zeros
  Tensor y = Tensor::uninitialized(DType::kFloat32, g.y_shape);
  if (y.num_elements() == 0) return {y};
  AttentionRun run(ctx, g, q, k, v, y);
  // Serial equivalent: for u < key_blocks: PackKeyBlocks(u, u + 1).
  threading::ParallelFor(ctx.pool, run.key_blocks(),
                         0.5 * static_cast<double>(kAttentionKeyBlock * g.depth),
                         [&](int64_t begin, int64_t end) { run.PackKeyBlocks(begin, end); });
  // Serial equivalent: for u < units: RunUnits(u, u + 1); units are
  // (batch, head, query block), independent of each other.
  const double cost = CostPerScoreNs(ctx.isa, g) *
                      static_cast<double>(std::min(g.q_len, kAttentionQueryBlock) * g.k_len);
  threading::ParallelFor(ctx.pool, run.units(), cost,
                         [&](int64_t begin, int64_t end) { run.RunUnits(begin, end); });
  return {y};
}

}  // namespace loom::kernels
