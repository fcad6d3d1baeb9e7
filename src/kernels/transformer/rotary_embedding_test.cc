#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "kernels/transformer/transformer.h"
#include "kernels/transformer/transformer_reference.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;

Attributes RotaryAttrs(bool interleaved, int64_t num_heads, int64_t rotary_dim) {
  Attributes attrs;
  attrs.set("interleaved", int64_t{interleaved ? 1 : 0});
  attrs.set("num_heads", num_heads);
  attrs.set("rotary_embedding_dim", rotary_dim);
  return attrs;
}

TEST(RotaryEmbedding, HandComputedValues) {
  // One head of 4 dims at one position; cos = [0, 1], sin = [1, 0]:
  // halves pair (x0, x2), (x1, x3): the first pair turns by 90 degrees.
  const Tensor x = Tensor::from_vector<float>({1, 1, 1, 4}, {1, 2, 3, 4});
  const Tensor c = Tensor::from_vector<float>({1, 1, 2}, {0, 1});
  const Tensor s = Tensor::from_vector<float>({1, 1, 2}, {1, 0});
  const Tensor y = testing::CallSingleOutput(RotaryEmbeddingKernel, {&x, &c, &s, nullptr},
                                             RotaryAttrs(false, 0, 0));
  EXPECT_EQ(testing::TensorValues<float>(y), (std::vector<float>{-3, 2, 1, 4}));
  // Interleaved pairs (x0, x1), (x2, x3).
  const Tensor yi = testing::CallSingleOutput(RotaryEmbeddingKernel, {&x, &c, &s, nullptr},
                                              RotaryAttrs(true, 0, 0));
  EXPECT_EQ(testing::TensorValues<float>(yi), (std::vector<float>{-2, 1, 3, 4}));
}

TEST(RotaryEmbedding, MatchesReferenceAtEveryThreadCount) {
  struct Case {
    std::vector<int64_t> x;  // 4-D [B, H, S, D] or 3-D [B, S, H * D]
    int64_t heads, rotary;
    bool ids;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 2}, 0, 0, false}, {{2, 3, 5, 8}, 0, 0, true}, {{2, 3, 5, 8}, 0, 4, false},
      {{3, 7, 12}, 2, 0, true},    {{3, 7, 30}, 5, 2, false},  {{2, 0, 4, 6}, 0, 0, false},
      {{1, 2, 0, 6}, 0, 0, true},  {{4, 13, 64}, 1, 32, true}, {{2, 4, 17, 10}, 0, 6, true}};
  uint32_t seed = 70;
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    for (const Case& c : cases) {
      const bool four_d = c.x.size() == 4;
      const int64_t b = c.x[0], s = four_d ? c.x[2] : c.x[1];
      const int64_t depth = four_d ? c.x[3] : c.x[2] / c.heads;
      const int64_t half = (c.rotary == 0 ? depth : c.rotary) / 2;
      const Tensor x = RandomTensor(dtype, Shape(c.x), ++seed, -2, 2);
      const Shape cache_shape = c.ids ? Shape({11 + s, half}) : Shape({b, s, half});
      const Tensor cos_cache = RandomTensor(dtype, cache_shape, ++seed);
      const Tensor sin_cache = RandomTensor(dtype, cache_shape, ++seed);
      const Tensor ids = RandomTensor(DType::kInt64, Shape({b, s}), ++seed, 0, 10 + s);
      const Tensor* id_ptr = c.ids ? &ids : nullptr;
      for (bool interleaved : {false, true}) {
        const Tensor expected =
            RotaryEmbeddingReference(x, cos_cache, sin_cache, id_ptr, interleaved, c.heads,
                                     c.rotary == 0 ? depth : c.rotary);
        const double tol = dtype == DType::kFloat32 ? 1e-6 : 1e-2;
        Tensor first;
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          const Tensor y =
              testing::CallSingleOutput(RotaryEmbeddingKernel, {&x, &cos_cache, &sin_cache, id_ptr},
                                        RotaryAttrs(interleaved, c.heads, c.rotary), pool.get());
          EXPECT_TENSORS_NEAR(y, expected, tol, tol);
          if (threads == 1) {
            first = y;
          } else {
            EXPECT_TRUE(BitwiseEqual(y, first)) << threads << " threads";
          }
        }
      }
    }
  }
}

TEST(RotaryEmbedding, Errors) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 2, 3, 4}), 1);
  const Tensor cache = RandomTensor(DType::kFloat32, Shape({1, 3, 2}), 2);
  const Tensor wrong_cache = RandomTensor(DType::kFloat32, Shape({1, 3, 3}), 3);
  const Tensor ids = Tensor::from_vector<int64_t>({1, 3}, {0, 1, 5});
  const Tensor table = RandomTensor(DType::kFloat32, Shape({4, 2}), 4);
  const Tensor x3 = RandomTensor(DType::kFloat32, Shape({1, 3, 8}), 5);
  const auto error = [](std::initializer_list<const Tensor*> in, const Attributes& attrs) {
    return testing::KernelErrorOf(RotaryEmbeddingKernel, in, attrs);
  };
  EXPECT_NE(error({&x, &wrong_cache, &cache}, {})
                .find("RotaryEmbedding: input 'cos_cache' must "
                      "have shape [1, 3, 2]"),
            std::string::npos);
  EXPECT_NE(error({&x, &table, &table, &ids}, {}).find("outside the caches' 4 positions"),
            std::string::npos);
  EXPECT_NE(error({&x3, &cache, &cache}, {}).find("num_heads"), std::string::npos);
  EXPECT_NE(error({&x, &cache, &cache}, RotaryAttrs(false, 0, 3)).find("rotary_embedding_dim"),
            std::string::npos);
  EXPECT_NE(error({&x, &cache, &cache}, RotaryAttrs(false, 0, 6)).find("rotary_embedding_dim"),
            std::string::npos);
  const Tensor x2 = RandomTensor(DType::kFloat32, Shape({3, 4}), 6);
  EXPECT_NE(error({&x2, &cache, &cache}, {}).find("rank 3 or 4"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
