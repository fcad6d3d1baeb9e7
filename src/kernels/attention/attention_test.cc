// LoomAttention against AttentionReference (the unfused definition in
// double): masks none / additive / bool / causal, query and key lengths
// 1, 7, 128 and 129 (one block, a partial vector, whole and ragged key
// blocks), 1 to 12 heads, D 32, 40 and 64, both layouts; every ISA the CPU
// has at 1, 2, 3 and 7 threads, bit-identical across thread counts.
#include "kernels/attention/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;
using Ints = std::vector<int64_t>;

// Float sums of up to 129 products against double: a few ulp of the
// largest terms.
constexpr double kRtol = 1e-4;
constexpr double kAtol = 2e-5;

enum class MaskKind { kNone, kAdditive, kBool, kCausal };

std::string MaskName(MaskKind kind) {
  switch (kind) {
    case MaskKind::kNone:
      return "none";
    case MaskKind::kAdditive:
      return "additive";
    case MaskKind::kBool:
      return "bool";
    case MaskKind::kCausal:
      return "causal";
  }
  return "?";
}

struct Problem {
  int64_t batch, heads, q_len, k_len, depth, v_depth;
  bool sequence_major = false;  // every operand in [B, S, H, X]
};

Shape OperandShape(const Problem& p, int64_t len, int64_t last) {
  return p.sequence_major ? Shape({p.batch, len, p.heads, last})
                          : Shape({p.batch, p.heads, len, last});
}

Attributes LayoutAttributes(const Problem& p) {
  Attributes attrs;
  const std::string layout = p.sequence_major ? "bshd" : "bhsd";
  attrs.set("q_layout", layout)
      .set("k_layout", layout)
      .set("v_layout", layout)
      .set("output_layout", layout);
  return attrs;
}

// Runs the kernel on every ISA and thread count: each close to the
// reference, and bit-identical to the one-thread run of its ISA.
void ExpectMatchesReference(const Attributes& attrs, const Tensor& q, const Tensor& k,
                            const Tensor& v, const Tensor* mask, double atol = kAtol) {
  const Tensor want = AttentionReference(attrs, q, k, v, mask);
  for (Isa isa : SupportedIsas()) {
    SCOPED_TRACE(std::string(IsaName(isa)));
    Tensor first;
    for (int threads : testing::kThreadCounts) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      auto pool = PoolWithThreads(threads);
      const Tensor* in[] = {&q, &k, &v, mask};
      const Tensor y = AttentionKernel({pool.get(), isa}, attrs, in)[0];
      if (threads == 1) {
        EXPECT_TENSORS_NEAR(y, want, kRtol, atol);
        first = y;
      } else {
        EXPECT_TRUE(BitwiseEqual(y, first));
      }
    }
  }
}

TEST(Attention, MatchesReferenceForEveryMaskAndLength) {
  const Ints lengths = {1, 7, 128, 129};
  // (heads, D, Dv) cycled through the cases.
  const Ints heads = {1, 12, 3, 2, 5};
  const Ints depths = {32, 64, 40, 32, 64};
  const Ints v_depths = {32, 64, 40, 24, 64};
  uint32_t seed = 1;
  size_t shape_index = 0;
  for (MaskKind kind : {MaskKind::kNone, MaskKind::kAdditive, MaskKind::kBool, MaskKind::kCausal})
    for (int64_t q_len : lengths)
      for (int64_t k_len : lengths) {
        const size_t at = shape_index++ % heads.size();
        Problem p{1 + static_cast<int64_t>(at % 2),
                  heads[at],
                  q_len,
                  k_len,
                  depths[at],
                  v_depths[at],
                  at % 3 == 2};
        SCOPED_TRACE(MaskName(kind) + " Sq " + std::to_string(q_len) + " Sk " +
                     std::to_string(k_len) + " H " + std::to_string(p.heads) + " D " +
                     std::to_string(p.depth) + (p.sequence_major ? " bshd" : " bhsd"));
        const Tensor q = RandomTensor(DType::kFloat32, OperandShape(p, q_len, p.depth), seed++);
        const Tensor k = RandomTensor(DType::kFloat32, OperandShape(p, k_len, p.depth), seed++);
        const Tensor v = RandomTensor(DType::kFloat32, OperandShape(p, k_len, p.v_depth), seed++);
        Attributes attrs = LayoutAttributes(p);
        attrs.set("scale", 1.5f / std::sqrt(static_cast<float>(p.depth)));
        Tensor mask;
        const Tensor* mask_ptr = nullptr;
        if (kind == MaskKind::kAdditive) {
          // A padding-style mask per batch and key, -10000 where masked.
          mask = Tensor(DType::kFloat32, Shape({p.batch, 1, 1, k_len}));
          for (int64_t j = 0; j < mask.num_elements(); ++j) {
            mask.data<float>()[j] = (j * 7 + 3) % 5 == 0 ? -10000.0f : 0.25f * (j % 3);
          }
          mask_ptr = &mask;
        } else if (kind == MaskKind::kBool) {
          mask = RandomTensor(DType::kBool, Shape({p.batch, 1, q_len, k_len}), seed++);
          mask_ptr = &mask;
        } else if (kind == MaskKind::kCausal) {
          attrs.set("causal", int64_t{1});
        }
        ExpectMatchesReference(attrs, q, k, v, mask_ptr);
      }
}

TEST(Attention, MaskBroadcastsFromLowerRanks) {
  const Problem p{2, 3, 9, 70, 40, 16};
  const Tensor q = RandomTensor(DType::kFloat32, OperandShape(p, p.q_len, p.depth), 1);
  const Tensor k = RandomTensor(DType::kFloat32, OperandShape(p, p.k_len, p.depth), 2);
  const Tensor v = RandomTensor(DType::kFloat32, OperandShape(p, p.k_len, p.v_depth), 3);
  // Per key only, per query only (the same for every key), and a full
  // [Sq, Sk] plane shared by batch and heads, with a causal limit on top.
  for (const Shape& shape :
       {Shape({p.k_len}), Shape({p.heads, p.q_len, 1}), Shape({1, 1, p.q_len, p.k_len})}) {
    SCOPED_TRACE(shape.to_string());
    const Tensor mask = RandomTensor(DType::kFloat32, shape, 4, -3.0, 1.0);
    ExpectMatchesReference({}, q, k, v, &mask);
    Attributes causal;
    causal.set("causal", int64_t{1});
    ExpectMatchesReference(causal, q, k, v, &mask);
  }
}

TEST(Attention, GroupedHeadsAndCausalOffset) {
  // 6 query heads over 2 or 3 K/V heads (each read by 3 or 2 query heads);
  // a causal limit shifted by a past of 0, 5 and 70 keys (past two blocks).
  for (int64_t kv_heads : {2, 3, 6}) {
    for (int64_t offset : {0, 5, 70}) {
      SCOPED_TRACE("kv heads " + std::to_string(kv_heads) + " offset " + std::to_string(offset));
      const int64_t q_len = 9, k_len = q_len + offset;
      const Tensor q = RandomTensor(DType::kFloat32, Shape({2, 6, q_len, 16}), 1);
      const Tensor k = RandomTensor(DType::kFloat32, Shape({2, kv_heads, k_len, 16}), 2);
      const Tensor v = RandomTensor(DType::kFloat32, Shape({2, kv_heads, k_len, 24}), 3);
      Attributes attrs;
      attrs.set("causal", int64_t{1}).set("causal_offset", offset);
      ExpectMatchesReference(attrs, q, k, v, nullptr);
      const Tensor mask = RandomTensor(DType::kFloat32, Shape({q_len, k_len}), 4, -3.0, 1.0);
      ExpectMatchesReference(attrs, q, k, v, &mask);
    }
  }
}

TEST(Attention, FullyMaskedRowsMatchTheUnfusedSoftmax) {
  const Problem p{1, 2, 5, 130, 32, 32};
  const Tensor q = RandomTensor(DType::kFloat32, OperandShape(p, p.q_len, p.depth), 1);
  const Tensor k = RandomTensor(DType::kFloat32, OperandShape(p, p.k_len, p.depth), 2);
  const Tensor v = RandomTensor(DType::kFloat32, OperandShape(p, p.k_len, p.v_depth), 3);
  const float inf = std::numeric_limits<float>::infinity();
  // Row 1 masked everywhere, row 3 everywhere but its last key (the first
  // two key blocks see nothing), the others partly.
  for (float masked : {-inf, -10000.0f, std::numeric_limits<float>::lowest()}) {
    SCOPED_TRACE("masked value " + std::to_string(masked));
    Tensor mask(DType::kFloat32, Shape({p.q_len, p.k_len}));
    Tensor keep(DType::kBool, Shape({p.q_len, p.k_len}));
    for (int64_t i = 0; i < p.q_len; ++i) {
      for (int64_t j = 0; j < p.k_len; ++j) {
        const bool visible = i == 1 ? false : i == 3 ? j == p.k_len - 1 : (i + j) % 3 != 0;
        mask.data<float>()[i * p.k_len + j] = visible ? 0.0f : masked;
        keep.data<bool>()[i * p.k_len + j] = visible;
      }
    }
    // A row masked by -10000 everywhere softmaxes float32 scores near
    // -10000, whose ulp is ~1e-3: float rounding of the unfused graph too.
    const double atol = masked == -10000.0f ? 2e-3 : kAtol;
    ExpectMatchesReference({}, q, k, v, &mask, atol);
    Attributes fill;
    fill.set("mask_fill", masked);
    ExpectMatchesReference(fill, q, k, v, &keep, atol);
    const Tensor* in[] = {&q, &k, &v, &mask};
    const Tensor y = AttentionKernel({nullptr, SelectIsa()}, {}, in)[0];
    // Row 1 of head 0: NaN for -inf (as Softmax of all -inf), else finite.
    EXPECT_EQ(std::isnan(y.data<float>()[1 * p.v_depth]), masked == -inf);
    EXPECT_FALSE(std::isnan(y.data<float>()[3 * p.v_depth]));
  }
}

TEST(Attention, MixedLayoutsAndEmptyKeys) {
  const Tensor q = RandomTensor(DType::kFloat32, Shape({2, 33, 4, 64}), 1);  // bshd
  const Tensor k = RandomTensor(DType::kFloat32, Shape({2, 65, 4, 64}), 2);  // bshd
  const Tensor v = RandomTensor(DType::kFloat32, Shape({2, 4, 65, 8}), 3);   // bhsd
  Attributes attrs;
  attrs.set("q_layout", std::string("bshd")).set("k_layout", std::string("bshd"));
  ExpectMatchesReference(attrs, q, k, v, nullptr);
  attrs.set("output_layout", std::string("bshd"));
  ExpectMatchesReference(attrs, q, k, v, nullptr);

  // No keys: the unfused MatMul over an empty axis gives zeros.
  const Tensor k0 = RandomTensor(DType::kFloat32, Shape({1, 2, 0, 8}), 4);
  const Tensor v0 = RandomTensor(DType::kFloat32, Shape({1, 2, 0, 5}), 5);
  const Tensor q0 = RandomTensor(DType::kFloat32, Shape({1, 2, 3, 8}), 6);
  const Tensor* in[] = {&q0, &k0, &v0};
  const Tensor y = AttentionKernel({}, {}, in)[0];
  EXPECT_EQ(y.shape(), Shape({1, 2, 3, 5}));
  for (float x : testing::TensorValues<float>(y)) EXPECT_EQ(x, 0.0f);
}

TEST(Attention, BadInputsAreRefusedByName) {
  const Tensor q = RandomTensor(DType::kFloat32, Shape({1, 2, 3, 8}), 1);
  const Tensor k = RandomTensor(DType::kFloat32, Shape({1, 2, 5, 8}), 2);
  const Tensor v = RandomTensor(DType::kFloat32, Shape({1, 2, 5, 4}), 3);
  const auto error = [](std::initializer_list<const Tensor*> in, const Attributes& attrs = {}) {
    return testing::KernelErrorOf(AttentionKernel, in, attrs);
  };
  EXPECT_EQ(error({&q, &k, &v}), "no error");
  const Tensor k_depth = RandomTensor(DType::kFloat32, Shape({1, 2, 5, 7}), 4);
  EXPECT_EQ(error({&q, &k_depth, &v}),
            "LoomAttention: input 'K' must have Q's batch 1, heads 2 and depth 8 in its layout "
            "(got shape [1, 2, 5, 7])");
  const Tensor v_len = RandomTensor(DType::kFloat32, Shape({1, 2, 6, 4}), 5);
  EXPECT_EQ(error({&q, &k, &v_len}),
            "LoomAttention: input 'V' must have K's batch 1, heads 2 and length 5 in its layout "
            "(got shape [1, 2, 6, 4])");
  const Tensor q_int = RandomTensor(DType::kInt32, Shape({1, 2, 3, 8}), 6);
  EXPECT_NE(error({&q_int, &k, &v}).find("LoomAttention: input 'Q'"), std::string::npos);
  const Tensor q_rank3 = RandomTensor(DType::kFloat32, Shape({2, 3, 8}), 7);
  EXPECT_NE(error({&q_rank3, &k, &v}).find("LoomAttention: input 'Q' must have rank 4"),
            std::string::npos);
  const Tensor mask_int = RandomTensor(DType::kInt64, Shape({5}), 8);
  EXPECT_NE(error({&q, &k, &v, &mask_int}).find("LoomAttention: input 'mask'"), std::string::npos);
  const Tensor mask_shape = RandomTensor(DType::kFloat32, Shape({3, 4}), 9);
  EXPECT_EQ(error({&q, &k, &v, &mask_shape}),
            "LoomAttention: input 'mask' must broadcast to [B, H, Sq, Sk] = [1, 2, 3, 5] "
            "(got shape [3, 4])");
  Attributes layout;
  layout.set("k_layout", std::string("bhds"));
  EXPECT_EQ(error({&q, &k, &v}, layout),
            "LoomAttention: attribute 'k_layout' must be \"bhsd\" or \"bshd\" (got \"bhds\")");
  Attributes causal;
  causal.set("causal", int64_t{2});
  EXPECT_EQ(error({&q, &k, &v}, causal),
            "LoomAttention: attribute 'causal' must be 0 or 1 (got 2)");
  EXPECT_NE(error({&q, &k}).find("LoomAttention:"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
