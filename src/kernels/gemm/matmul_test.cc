#include "kernels/gemm/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/fused_activation.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;
using Ints = std::vector<int64_t>;

TEST(MatMul, BroadcastsBatchesAndPromotesVectorsLikeNumPy) {
  const std::vector<std::pair<Ints, Ints>> cases = {
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 6}},
      {{4}, {4, 5}},
      {{3, 4}, {4}},
      {{4}, {4}},
      {{1, 7, 300}, {300, 1030}},
      {{17, 19}, {19, 23}},
      {{0, 4}, {4, 5}},
      {{3, 0}, {0, 5}},
      {{6, 2, 2}, {6, 2, 2}},
      {{40, 8, 16}, {40, 16, 8}},
  };
  for (const auto& [a_shape, b_shape] : cases) {
    const Tensor a = RandomTensor(DType::kFloat32, Shape(a_shape), 1);
    const Tensor b = RandomTensor(DType::kFloat32, Shape(b_shape), 2);
    const Tensor expected = MatMulReference(a, b);
    const double atol = 2e-5 * std::sqrt(static_cast<double>(a_shape.back()) + 1);
    for (int threads : testing::kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      for (Isa isa : SupportedIsas()) {
        const Tensor y = CallKernel(MatMulKernel, {pool.get(), isa}, {}, {&a, &b})[0];
        const std::string mismatch = testing::CompareTensors(y, expected, 1e-5, atol);
        EXPECT_TRUE(mismatch.empty())
            << a.shape().to_string() << " x " << b.shape().to_string() << " " << IsaName(isa)
            << " threads " << threads << ": " << mismatch;
      }
    }
  }
}

TEST(MatMul, HandComputedAndResultShapes) {
  const Tensor a = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  const Tensor b = Tensor::from_vector<float>({2, 2}, {5, 6, 7, 8});
  const Tensor v = Tensor::from_vector<float>({2}, {1, 1});
  EXPECT_TENSORS_NEAR(CallKernel(MatMulKernel, {}, {}, {&a, &b})[0],
                      Tensor::from_vector<float>({2, 2}, {19, 22, 43, 50}), 0, 0);
  EXPECT_TENSORS_NEAR(CallKernel(MatMulKernel, {}, {}, {&v, &a})[0],
                      Tensor::from_vector<float>({2}, {4, 6}), 0, 0);
  EXPECT_TENSORS_NEAR(CallKernel(MatMulKernel, {}, {}, {&a, &v})[0],
                      Tensor::from_vector<float>({2}, {3, 7}), 0, 0);
  EXPECT_EQ(CallKernel(MatMulKernel, {}, {}, {&v, &v})[0].shape(), Shape({}));
}

TEST(MatMul, IntegerAndDoubleDtypes) {
  for (DType dtype :
       {DType::kFloat64, DType::kInt32, DType::kInt64, DType::kUInt32, DType::kUInt64}) {
    const Tensor a = RandomTensor(dtype, {3, 5, 7}, 3, -9, 9);
    const Tensor b = RandomTensor(dtype, {7, 4}, 4, -9, 9);
    auto pool = PoolWithThreads(3);
    SCOPED_TRACE(dtype_name(dtype));
    EXPECT_TENSORS_NEAR(CallKernel(MatMulKernel, {pool.get(), Isa::kPortable}, {}, {&a, &b})[0],
                        MatMulReference(a, b), 1e-12, 0);
  }
}

TEST(MatMul, UnsignedWrapsModulo2ToTheBits) {
  // [2^63, 3] x [2, 2^63 + 1]^T = 2^64 + 3 * 2^63 + 3 = 2^63 + 3 mod 2^64.
  const uint64_t top = uint64_t{1} << 63;
  const Tensor a = Tensor::from_vector<uint64_t>({1, 2}, {top, 3});
  const Tensor b = Tensor::from_vector<uint64_t>({2, 1}, {2, top + 1});
  EXPECT_EQ(CallKernel(MatMulKernel, {}, {}, {&a, &b})[0].data<uint64_t>()[0], top + 3);
  // 65536 * 65536 + 1 * 4294967295 = 2^32 + 2^32 - 1 = 2^32 - 1 mod 2^32.
  const Tensor c = Tensor::from_vector<uint32_t>({1, 2}, {65536, 1});
  const Tensor d = Tensor::from_vector<uint32_t>({2, 1}, {65536, 4294967295u});
  EXPECT_EQ(CallKernel(MatMulKernel, {}, {}, {&c, &d})[0].data<uint32_t>()[0], 4294967295u);
}

TEST(MatMul, BitExactAcrossThreadCounts) {
  const Tensor a = RandomTensor(DType::kFloat32, {3, 37, 300}, 5);
  const Tensor b = RandomTensor(DType::kFloat32, {300, 130}, 6);
  for (Isa isa : SupportedIsas()) {
    auto one = PoolWithThreads(1);
    const Tensor first = CallKernel(MatMulKernel, {one.get(), isa}, {}, {&a, &b})[0];
    for (int threads : {2, 3, 7}) {
      auto pool = PoolWithThreads(threads);
      EXPECT_TRUE(testing::BitwiseEqual(
          CallKernel(MatMulKernel, {pool.get(), isa}, {}, {&a, &b})[0], first))
          << IsaName(isa) << " threads " << threads;
    }
  }
}

// B with batch dimensions runs as units of (batch, row chunk), chunked
// by the thread count: 1 or 3 batches of 200 rows (1-3 chunks), 12 heads
// of 128 x 64 x 128 (attention's shape), and 2 batches of 20 rows (never
// chunked, fewer units than threads): the same bits at every thread count
// and each ISA, and within float rounding of a double-precision loop.
TEST(MatMul, BatchedBIsBitExactAcrossThreadCountsAndMatchesDoubleSums) {
  struct Case {
    Ints a, b;
  };
  const Case cases[] = {{{1, 200, 70}, {1, 70, 45}},
                        {{3, 200, 70}, {3, 70, 45}},
                        {{12, 128, 64}, {12, 64, 128}},
                        {{2, 20, 33}, {2, 33, 17}}};
  int seed = 40;
  for (const Case& c : cases) {
    const Tensor a = RandomTensor(DType::kFloat32, Shape(c.a), seed++);
    const Tensor b = RandomTensor(DType::kFloat32, Shape(c.b), seed++);
    const int64_t batches = c.a[0], m = c.a[1], k = c.a[2], n = c.b[2];
    for (Isa isa : SupportedIsas()) {
      auto one = PoolWithThreads(1);
      const Tensor first = CallKernel(MatMulKernel, {one.get(), isa}, {}, {&a, &b})[0];
      for (int64_t i = 0; i < batches * m; i += 7) {
        const int64_t batch = i / m;
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t p = 0; p < k; ++p) {
            sum += static_cast<double>(a.data<float>()[i * k + p]) *
                   b.data<float>()[(batch * k + p) * n + j];
          }
          ASSERT_NEAR(first.data<float>()[i * n + j], sum, 1e-4 * k) << IsaName(isa);
        }
      }
      for (int threads : {2, 3, 7}) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(testing::BitwiseEqual(
            CallKernel(MatMulKernel, {pool.get(), isa}, {}, {&a, &b})[0], first))
            << IsaName(isa) << " threads " << threads << " a " << Shape(c.a).to_string();
      }
    }
  }
}

TEST(MatMul, BadShapesAndDtypesAreClearErrors) {
  const Tensor a(DType::kFloat32, {2, 3});
  const Tensor b(DType::kFloat32, {4, 5});
  EXPECT_EQ(testing::KernelErrorOf(MatMulKernel, {&a, &b}),
            "MatMul: inner dimensions differ: A [2, 3] has K = 3, B [4, 5] has K = 4");
  const Tensor a3(DType::kFloat32, {2, 2, 3}), b3(DType::kFloat32, {3, 3, 4});
  EXPECT_NE(testing::KernelErrorOf(MatMulKernel, {&a3, &b3})
                .find("MatMul: batch dimensions of A [2, 2, 3] and B "
                      "[3, 3, 4] do not broadcast"),
            std::string::npos);
  const Tensor ints(DType::kInt32, {3, 4});
  EXPECT_EQ(testing::KernelErrorOf(MatMulKernel, {&a, &ints}),
            "MatMul: input 'B' must have dtype float32 (got int32)");
  const Tensor scalar(DType::kFloat32, {});
  EXPECT_EQ(testing::KernelErrorOf(MatMulKernel, {&scalar, &b}),
            "MatMul: inputs must have rank >= 1 (got A [], B [4, 5])");
  // A product whose size overflows is refused before allocating.
  const Tensor tall(DType::kFloat32, {int64_t{1} << 31, 0});
  const Tensor wide(DType::kFloat32, {0, int64_t{1} << 31});
  EXPECT_THROW(CallKernel(MatMulKernel, {}, {}, {&tall, &wide}), InvalidArgumentError);
}

Attributes GemmAttrs(bool ta, bool tb, float alpha, float beta) {
  Attributes attrs;
  attrs.set("transA", int64_t{ta}).set("transB", int64_t{tb}).set("alpha", alpha).set("beta", beta);
  return attrs;
}

TEST(Gemm, TransposesScalesAndBroadcastsC) {
  const int64_t m = 13, k = 70, n = 29;
  const std::vector<Ints> c_shapes = {{}, {n}, {1, n}, {m, 1}, {m, n}};
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      const Tensor a = RandomTensor(DType::kFloat32, ta ? Shape{k, m} : Shape{m, k}, 7);
      const Tensor b = RandomTensor(DType::kFloat32, tb ? Shape{n, k} : Shape{k, n}, 8);
      for (const Ints& c_shape : c_shapes) {
        const Tensor c = RandomTensor(DType::kFloat32, Shape(c_shape), 9);
        Attributes attrs = GemmAttrs(ta, tb, 0.5f, 2.0f);
        SetFusedActivationAttributes({ActivationKind::kRelu}, attrs);
        const Tensor expected = GemmReference(attrs, a, b, &c);
        for (int threads : {1, 3}) {
          auto pool = PoolWithThreads(threads);
          for (Isa isa : SupportedIsas()) {
            EXPECT_TENSORS_NEAR(CallKernel(GemmKernel, {pool.get(), isa}, attrs, {&a, &b, &c})[0],
                                expected, 1e-5, 2e-4);
          }
        }
      }
      const Tensor expected = GemmReference(GemmAttrs(ta, tb, 1, 1), a, b, nullptr);
      EXPECT_TENSORS_NEAR(CallKernel(GemmKernel, {}, GemmAttrs(ta, tb, 1, 1), {&a, &b})[0],
                          expected, 1e-5, 2e-4);
    }
  }
}

TEST(Gemm, BadCIsAClearError) {
  const Tensor a(DType::kFloat32, {2, 3}), b(DType::kFloat32, {3, 4}), c(DType::kFloat32, {3, 4});
  EXPECT_EQ(testing::KernelErrorOf(GemmKernel, {&a, &b, &c}),
            "Gemm: input 'C' of shape [3, 4] does not broadcast to [2, 4]");
  EXPECT_EQ(testing::KernelErrorOf(GemmKernel, {&a, &a}),
            "Gemm: inner dimensions differ: op(A) of A [2, 3] has K = 3, op(B) of B [2, 3] has "
            "K = 2");
}

TEST(PreparedMatMul, MatchesTheOneShotKernel) {
  const Isa isa = SupportedIsas().back();
  auto pool = PoolWithThreads(2);
  const Tensor w = RandomTensor(DType::kFloat32, {96, 200}, 10);
  PreparedMatMul matmul("MatMul", {}, w, isa);
  // Several rows: the same kernel over the same k blocks, so the same bits.
  for (Ints a_shape : {Ints{100, 96}, Ints{2, 50, 96}}) {
    const Tensor a = RandomTensor(DType::kFloat32, Shape(a_shape), 11);
    EXPECT_TRUE(
        testing::BitwiseEqual(matmul.Run({pool.get(), isa}, a),
                              CallKernel(MatMulKernel, {pool.get(), isa}, {}, {&a, &w})[0]));
  }
  // One row reads the packed panels (gemv_packed), the one-shot call whole
  // rows of B: other summation orders, so near each other, not equal.
  const Tensor row = RandomTensor(DType::kFloat32, {1, 96}, 11);
  EXPECT_TENSORS_NEAR(matmul.Run({pool.get(), isa}, row), MatMulReference(row, w), 1e-5, 2e-4);
  const Tensor wt = RandomTensor(DType::kFloat32, {200, 96}, 12);
  const Tensor bias = RandomTensor(DType::kFloat32, {200}, 13);
  const Attributes attrs = GemmAttrs(false, true, 1, 1);
  PreparedMatMul gemm("Gemm", attrs, wt, isa);
  // 1 row takes the few-row path (B stored transposed back to [K, N] at
  // prepare time), 8 and 70 the packed one.
  for (int64_t rows : {1, 8, 70}) {
    const Tensor a = RandomTensor(DType::kFloat32, {rows, 96}, 14);
    EXPECT_TENSORS_NEAR(gemm.Run({pool.get(), isa}, a, &bias), GemmReference(attrs, a, wt, &bias),
                        1e-5, 2e-4);
  }
}

// FusedMatMul's expected output: the plain product, + bias, then the
// activation, computed here in double from std::erf / std::max.
Tensor FusedMatMulExpected(const Tensor& a, const Tensor& w, const Tensor* bias,
                           ActivationKind kind) {
  Tensor y = MatMulReference(a, w);
  const int64_t n = w.shape().dim(1);
  float* p = y.data<float>();
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    double v = p[i] + (bias != nullptr ? bias->data<float>()[i % n] : 0.0f);
    if (kind == ActivationKind::kRelu) v = std::max(v, 0.0);
    if (kind == ActivationKind::kGelu) v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    p[i] = static_cast<float>(v);
  }
  return y;
}

TEST(FusedMatMul, AddsTheBiasAndAppliesTheActivationOnEveryPath) {
  const Tensor w = RandomTensor(DType::kFloat32, {96, 200}, 20);
  const Tensor bias = RandomTensor(DType::kFloat32, {200}, 21);
  for (ActivationKind kind :
       {ActivationKind::kIdentity, ActivationKind::kRelu, ActivationKind::kGelu}) {
    Attributes attrs;
    if (kind != ActivationKind::kIdentity) SetFusedActivationAttributes({kind}, attrs);
    // 1 row: the few-row path; 5 and 2 x 50: the packed one.
    for (Ints a_shape : {Ints{1, 96}, Ints{5, 96}, Ints{2, 50, 96}, Ints{96}}) {
      const Tensor a = RandomTensor(DType::kFloat32, Shape(a_shape), 22);
      for (const Tensor* b : {&bias, static_cast<const Tensor*>(nullptr)}) {
        const Tensor expected = FusedMatMulExpected(a, w, b, kind);
        for (int threads : testing::kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          for (Isa isa : SupportedIsas()) {
            const Tensor y =
                b != nullptr
                    ? CallKernel(FusedMatMulKernel, {pool.get(), isa}, attrs, {&a, &w, b})[0]
                    : CallKernel(FusedMatMulKernel, {pool.get(), isa}, attrs, {&a, &w})[0];
            EXPECT_TENSORS_NEAR(y, expected, 1e-5, 2e-4);
            PreparedMatMul prepared("FusedMatMul", attrs, w, isa);
            EXPECT_TENSORS_NEAR(prepared.Run({pool.get(), isa}, a, b), expected, 1e-5, 2e-4);
          }
        }
      }
    }
  }
}

TEST(FusedMatMul, BadBiasAndWeightsAreClearErrors) {
  const Tensor a(DType::kFloat32, {2, 3}), w(DType::kFloat32, {3, 4});
  const Tensor bias(DType::kFloat32, {3}), batched(DType::kFloat32, {2, 3, 4});
  EXPECT_EQ(testing::KernelErrorOf(FusedMatMulKernel, {&a, &w, &bias}),
            "FusedMatMul: bias of shape [3] must be [4] (B is [3, 4])");
  EXPECT_NE(testing::KernelErrorOf(FusedMatMulKernel, {&a, &batched}).find("FusedMatMul"),
            std::string::npos);
  const Tensor tall(DType::kFloat32, {5, 4});
  EXPECT_NE(testing::KernelErrorOf(FusedMatMulKernel, {&a, &tall}).find("inner dimensions"),
            std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(FusedMatMulKernel, {&a, &bias}).find("rank"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
