// ONNX Attention against OnnxAttentionReference (the definition, serial, in
// double): 3-D and 4-D inputs, grouped heads, past caches, masks (float,
// bool, short, nonpad lengths), causal, softcap, every qk_matmul_output
// mode and dtype; the fused path (loom_outputs < 4, float32) and the plain
// one; every ISA at 1, 2, 3 and 7 threads, bit-identical across threads.
#include "kernels/attention/onnx_attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;

struct Case {
  std::string name;
  bool three_d = false;
  int64_t batch = 2, q_heads = 4, kv_heads = 2, q_len = 5, kv_len = 7, past = 0, depth = 8,
          v_depth = 8;
  DType dtype = DType::kFloat32;
  enum MaskKind { kNone, kFloat, kBool, kShortFloat, kShortBool } mask = kNone;
  int mask_rank = 2;
  bool causal = false, nonpad = false;
  float softcap = 0.0f;
  int64_t qk_mode = 0;
};

struct Inputs {
  std::vector<Tensor> owned;
  std::vector<const Tensor*> ptrs;
};

Inputs MakeInputs(const Case& c, uint32_t seed) {
  Inputs in;
  in.owned.resize(7);
  const int64_t total = c.past + c.kv_len;
  if (c.three_d) {
    in.owned[0] = RandomTensor(c.dtype, Shape({c.batch, c.q_len, c.q_heads * c.depth}), seed);
    in.owned[1] = RandomTensor(c.dtype, Shape({c.batch, c.kv_len, c.kv_heads * c.depth}), seed + 1);
    in.owned[2] =
        RandomTensor(c.dtype, Shape({c.batch, c.kv_len, c.kv_heads * c.v_depth}), seed + 2);
  } else {
    in.owned[0] = RandomTensor(c.dtype, Shape({c.batch, c.q_heads, c.q_len, c.depth}), seed);
    in.owned[1] = RandomTensor(c.dtype, Shape({c.batch, c.kv_heads, c.kv_len, c.depth}), seed + 1);
    in.owned[2] =
        RandomTensor(c.dtype, Shape({c.batch, c.kv_heads, c.kv_len, c.v_depth}), seed + 2);
  }
  in.ptrs = {&in.owned[0], &in.owned[1], &in.owned[2], nullptr, nullptr, nullptr, nullptr};
  if (c.mask != Case::kNone) {
    const bool short_mask = c.mask == Case::kShortFloat || c.mask == Case::kShortBool;
    const int64_t len = short_mask ? std::max<int64_t>(total - 2, 1) : total;
    std::vector<int64_t> dims = {c.batch, c.q_heads, c.q_len, len};
    dims.erase(dims.begin(), dims.begin() + (4 - c.mask_rank));
    if (c.mask_rank >= 3) dims[static_cast<size_t>(c.mask_rank - 3)] = 1;  // a broadcast axis
    const bool is_bool = c.mask == Case::kBool || c.mask == Case::kShortBool;
    in.owned[3] = is_bool ? RandomTensor(DType::kBool, Shape(dims), seed + 3)
                          : RandomTensor(c.dtype, Shape(dims), seed + 3, -2, 1);
    if (is_bool) {
      // Mostly true, so most rows keep some key.
      bool* m = in.owned[3].data<bool>();
      for (int64_t k = 0; k < in.owned[3].num_elements(); k += 3) m[k] = true;
    }
    in.ptrs[3] = &in.owned[3];
  }
  if (c.past > 0) {
    in.owned[4] = RandomTensor(c.dtype, Shape({c.batch, c.kv_heads, c.past, c.depth}), seed + 4);
    in.owned[5] = RandomTensor(c.dtype, Shape({c.batch, c.kv_heads, c.past, c.v_depth}), seed + 5);
    in.ptrs[4] = &in.owned[4];
    in.ptrs[5] = &in.owned[5];
  }
  if (c.nonpad) {
    std::vector<int64_t> lengths;
    for (int64_t b = 0; b < c.batch; ++b) lengths.push_back(std::max<int64_t>(total - b - 1, 1));
    in.owned[6] = Tensor::from_vector<int64_t>(Shape({c.batch}), lengths);
    in.ptrs[6] = &in.owned[6];
  }
  return in;
}

Attributes CaseAttributes(const Case& c, int64_t outputs) {
  Attributes attrs;
  if (c.three_d) attrs.set("q_num_heads", c.q_heads).set("kv_num_heads", c.kv_heads);
  attrs.set("is_causal", int64_t{c.causal ? 1 : 0});
  if (c.softcap > 0) attrs.set("softcap", c.softcap);
  attrs.set("qk_matmul_output_mode", c.qk_mode);
  attrs.set("loom_outputs", outputs);
  return attrs;
}

void ExpectMatchesReference(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.name);
  const Inputs in = MakeInputs(c, seed);
  for (int64_t outputs : {int64_t{1}, int64_t{3}, int64_t{4}}) {
    SCOPED_TRACE("outputs " + std::to_string(outputs));
    const Attributes attrs = CaseAttributes(c, outputs);
    const std::vector<Tensor> want = OnnxAttentionReference(attrs, in.ptrs);
    const double tol = c.dtype == DType::kFloat32   ? 1e-4
                       : c.dtype == DType::kFloat64 ? 1e-10
                                                    : 2e-2;
    for (Isa isa : SupportedIsas()) {
      SCOPED_TRACE(std::string(IsaName(isa)));
      std::vector<Tensor> first;
      for (int threads : testing::kThreadCounts) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        auto pool = PoolWithThreads(threads);
        const std::vector<Tensor> got = OnnxAttentionKernel(
            {pool.get(), isa}, attrs, KernelInputs(in.ptrs.data(), in.ptrs.size()));
        ASSERT_EQ(got.size(), 4u);
        for (int64_t k = 0; k < outputs; ++k) {
          SCOPED_TRACE("output " + std::to_string(k));
          EXPECT_TENSORS_NEAR(got[static_cast<size_t>(k)], want[static_cast<size_t>(k)], tol, tol);
        }
        if (threads == 1) {
          first = got;
        } else {
          for (int64_t k = 0; k < outputs; ++k) {
            EXPECT_TRUE(BitwiseEqual(got[static_cast<size_t>(k)], first[static_cast<size_t>(k)]));
          }
        }
      }
    }
  }
}

TEST(OnnxAttention, MatchesReference) {
  std::vector<Case> cases;
  const auto add = [&](Case c) { cases.push_back(std::move(c)); };
  add({.name = "4d"});
  add({.name = "3d", .three_d = true});
  add({.name = "mha", .kv_heads = 4});
  add({.name = "one", .batch = 1, .q_heads = 1, .kv_heads = 1, .q_len = 1, .kv_len = 1});
  add({.name = "diff_v", .depth = 8, .v_depth = 5});
  add({.name = "3d_diff_v", .three_d = true, .q_heads = 3, .kv_heads = 3, .v_depth = 7});
  add({.name = "past", .past = 6});
  add({.name = "3d_past_causal", .three_d = true, .past = 4, .causal = true});
  add({.name = "causal", .causal = true});
  add({.name = "causal_long", .q_len = 70, .kv_len = 131, .past = 3, .causal = true});
  add({.name = "float_mask", .mask = Case::kFloat});
  add({.name = "float_mask_4d", .mask = Case::kFloat, .mask_rank = 4});
  add({.name = "float_mask_3d_causal", .mask = Case::kFloat, .mask_rank = 3, .causal = true});
  add({.name = "bool_mask", .mask = Case::kBool});
  add({.name = "bool_mask_4d", .past = 2, .mask = Case::kBool, .mask_rank = 4});
  add({.name = "short_float", .past = 3, .mask = Case::kShortFloat, .mask_rank = 4});
  add({.name = "short_bool", .mask = Case::kShortBool});
  add({.name = "nonpad", .nonpad = true});
  add({.name = "nonpad_mask", .past = 2, .mask = Case::kFloat, .nonpad = true});
  add({.name = "softcap", .mask = Case::kFloat, .softcap = 2.0f});
  for (int64_t mode = 0; mode < 4; ++mode) {
    add({.name = "qk_mode" + std::to_string(mode),
         .past = 2,
         .mask = Case::kFloat,
         .causal = true,
         .softcap = mode == 2 ? 3.0f : 0.0f,
         .qk_mode = mode});
  }
  add({.name = "f16", .dtype = DType::kFloat16, .mask = Case::kFloat});
  add({.name = "bf16", .dtype = DType::kBFloat16, .causal = true});
  add({.name = "f64", .past = 2, .dtype = DType::kFloat64, .mask = Case::kBool});
  add({.name = "empty_kv", .kv_len = 0});
  add({.name = "empty_q", .q_len = 0});
  add({.name = "zero_batch", .batch = 0});
  uint32_t seed = 100;
  for (const Case& c : cases) ExpectMatchesReference(c, seed += 10);
}

TEST(OnnxAttention, FullyMaskedRowsAreNaNAsTheReference) {
  // Query 0 sees no key: its output row is NaN on both paths.
  const Tensor q = RandomTensor(DType::kFloat32, Shape({1, 1, 2, 4}), 1);
  const Tensor k = RandomTensor(DType::kFloat32, Shape({1, 1, 3, 4}), 2);
  const Tensor v = RandomTensor(DType::kFloat32, Shape({1, 1, 3, 4}), 3);
  const Tensor mask = Tensor::from_vector<bool>({2, 3}, {false, false, false, true, false, true});
  for (int64_t outputs : {int64_t{1}, int64_t{4}}) {
    Attributes attrs;
    attrs.set("loom_outputs", outputs);
    const Tensor* in[] = {&q, &k, &v, &mask};
    const Tensor y = OnnxAttentionKernel({}, attrs, in)[0];
    for (int c = 0; c < 4; ++c) {
      EXPECT_TRUE(std::isnan(y.data<float>()[c]));
      EXPECT_FALSE(std::isnan(y.data<float>()[4 + c]));
    }
  }
}

TEST(OnnxAttention, HandComputedValues) {
  // One query, two keys with scores 0 and ln 3 (scale 1): weights 1/4, 3/4.
  const Tensor q = Tensor::from_vector<float>({1, 1, 1, 1}, {1});
  const Tensor k = Tensor::from_vector<float>({1, 1, 2, 1}, {0, static_cast<float>(std::log(3.0))});
  const Tensor v = Tensor::from_vector<float>({1, 1, 2, 2}, {4, 8, 0, 4});
  Attributes attrs;
  attrs.set("scale", 1.0f);
  const Tensor* in[] = {&q, &k, &v};
  const std::vector<Tensor> out = OnnxAttentionKernel({}, attrs, in);
  EXPECT_NEAR(out[0].data<float>()[0], 1.0, 1e-6);
  EXPECT_NEAR(out[0].data<float>()[1], 5.0, 1e-6);
  EXPECT_NEAR(out[3].data<float>()[1], std::log(3.0), 1e-6);  // mode 0: the scaled Q·Kᵀ
}

TEST(OnnxAttention, BadInputsAreRefusedByName) {
  const Tensor q = RandomTensor(DType::kFloat32, Shape({1, 4, 3, 8}), 1);
  const Tensor k = RandomTensor(DType::kFloat32, Shape({1, 3, 5, 8}), 2);
  const Tensor v = RandomTensor(DType::kFloat32, Shape({1, 3, 5, 8}), 3);
  const Tensor k2 = RandomTensor(DType::kFloat32, Shape({1, 2, 5, 8}), 4);
  const Tensor v2 = RandomTensor(DType::kFloat32, Shape({1, 2, 5, 8}), 5);
  const Tensor q3 = RandomTensor(DType::kFloat32, Shape({1, 3, 32}), 6);
  const Tensor long_mask = RandomTensor(DType::kFloat32, Shape({3, 6}), 7);
  const Tensor bad_mask = RandomTensor(DType::kFloat32, Shape({2, 5}), 8);
  const Tensor ints = Tensor::from_vector<int32_t>({1}, {1});
  const auto error = [](std::initializer_list<const Tensor*> in, const Attributes& attrs = {}) {
    return testing::KernelErrorOf(OnnxAttentionKernel, in, attrs);
  };
  EXPECT_NE(error({&q, &k, &v}).find("Attention: K/V heads 3 must divide Q's heads 4"),
            std::string::npos);
  EXPECT_NE(error({&q3, &q3, &q3}).find("q_num_heads"), std::string::npos);
  EXPECT_NE(error({&q, &k2, &v2, &long_mask}).find("input 'attn_mask' must broadcast"),
            std::string::npos);
  EXPECT_NE(error({&q, &k2, &v2, &bad_mask}).find("input 'attn_mask' must broadcast"),
            std::string::npos);
  EXPECT_NE(error({&ints, &k2, &v2}).find("input 'Q'"), std::string::npos);
  EXPECT_NE(error({&q, &k2, &v2, nullptr, &k2}).find("past_value"), std::string::npos);
  Attributes mode;
  mode.set("qk_matmul_output_mode", int64_t{4});
  EXPECT_NE(error({&q, &k2, &v2}, mode).find("qk_matmul_output_mode"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
