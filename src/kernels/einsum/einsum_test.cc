// Einsum: hand-worked equations, the plain oracle on random shapes for
// matmul-like, diagonal, ellipsis and multi-operand equations (float32
// through the GEMM at 1, 2, 3 and 7 threads and each ISA; float64 and
// integers through the loop path), and errors.
#include "kernels/einsum/einsum.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::RandomTensor;
using testing::TensorValues;

Attributes Eq(const std::string& e) {
  Attributes a;
  a.set("equation", e);
  return a;
}

TEST(Einsum, HandWorked) {
  const Tensor m = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(EinsumKernel, {&m}, Eq("ij->ji"))),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(EinsumKernel, {&m}, Eq("ij->i"))),
            (std::vector<float>{6, 15}));
  // Implicit output of "ij": "ij" (letters used once, sorted); of "ji": "ij" too.
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(EinsumKernel, {&m}, Eq("ji"))),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // Matrix product: [[1 2 3] [4 5 6]] x [[1] [1] [1]] = [6 15].
  const Tensor ones = Tensor::from_vector<float>({3, 1}, {1, 1, 1});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(EinsumKernel, {&m, &ones}, Eq("ij, jk -> ik"))),
            (std::vector<float>{6, 15}));
  // Trace and diagonal.
  const Tensor sq = Tensor::from_vector<int64_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(TensorValues<int64_t>(CallSingleOutput(EinsumKernel, {&sq}, Eq("ii"))),
            (std::vector<int64_t>{5}));
  EXPECT_EQ(TensorValues<int64_t>(CallSingleOutput(EinsumKernel, {&sq}, Eq("ii->i"))),
            (std::vector<int64_t>{1, 4}));
  // Inner product to a scalar; a scalar's identity.
  const Tensor v = Tensor::from_vector<double>({3}, {1, 2, 3});
  const Tensor y = CallSingleOutput(EinsumKernel, {&v, &v}, Eq("i,i"));
  EXPECT_EQ(y.shape(), Shape({}));
  EXPECT_EQ(TensorValues<double>(y), (std::vector<double>{14}));
  const Tensor s = Tensor::from_vector<double>({}, {2.5});
  EXPECT_EQ(TensorValues<double>(CallSingleOutput(EinsumKernel, {&s}, Eq("->"))),
            (std::vector<double>{2.5}));
}

struct Case {
  std::string equation;
  std::vector<std::vector<int64_t>> shapes;
};

const std::vector<Case> kCases = {
    {"bij,bjk->bik", {{5, 2, 3}, {5, 3, 4}}},
    {"ij,jk", {{7, 1}, {1, 13}}},
    {"...ii->...i", {{3, 5, 5}}},
    {"...ij,...jk->...ik", {{2, 1, 3, 4}, {3, 4, 5}}},
    {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},
    {"abc,cd,ad->b", {{2, 3, 4}, {4, 5}, {2, 5}}},
    {"i,j->ij", {{3}, {0}}},
    {"iij,jk->ik", {{3, 3, 2}, {2, 4}}},
    {"ij->", {{4, 6}}},
};

TEST(Einsum, MatchesReferenceFloat32AcrossThreadsAndIsas) {
  uint32_t seed = 1;
  for (const Case& c : kCases) {
    std::vector<Tensor> tensors;
    for (const auto& s : c.shapes)
      tensors.push_back(RandomTensor(DType::kFloat32, Shape(s), seed++));
    std::vector<const Tensor*> ptrs;
    std::vector<int> ranks;
    for (const Tensor& t : tensors) {
      ptrs.push_back(&t);
      ranks.push_back(t.shape().rank());
    }
    const Tensor expected = einsum::EinsumReference(einsum::ParseEquation(c.equation, ranks), ptrs);
    for (Isa isa : testing::SupportedIsas()) {
      Tensor first;
      for (int threads : testing::kThreadCounts) {
        auto pool = testing::PoolWithThreads(threads);
        const KernelContext ctx{pool.get(), isa};
        const std::vector<Tensor> out = EinsumKernel(ctx, Eq(c.equation), ptrs);
        ASSERT_EQ(out.size(), 1u);
        SCOPED_TRACE(c.equation);
        EXPECT_TENSORS_NEAR(out[0], expected, 1e-5, 1e-5);
        if (threads == 1) {
          first = out[0];
        } else {
          EXPECT_TRUE(BitwiseEqual(out[0], first)) << c.equation << " " << threads;
        }
      }
    }
  }
}

TEST(Einsum, MatchesReferenceFloat64AndIntegers) {
  uint32_t seed = 100;
  for (DType dtype : {DType::kFloat64, DType::kInt32, DType::kInt64, DType::kUInt8}) {
    for (const Case& c : kCases) {
      std::vector<Tensor> tensors;
      for (const auto& s : c.shapes) {
        tensors.push_back(RandomTensor(dtype, Shape(s), seed++, -5, 5));
      }
      std::vector<const Tensor*> ptrs;
      std::vector<int> ranks;
      for (const Tensor& t : tensors) {
        ptrs.push_back(&t);
        ranks.push_back(t.shape().rank());
      }
      const Tensor expected =
          einsum::EinsumReference(einsum::ParseEquation(c.equation, ranks), ptrs);
      const std::vector<Tensor> out = EinsumKernel(KernelContext{}, Eq(c.equation), ptrs);
      SCOPED_TRACE(c.equation);
      EXPECT_TENSORS_NEAR(out[0], expected, 1e-12, 1e-12);
    }
  }
}

TEST(Einsum, Errors) {
  const Tensor m = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_NE(KernelErrorOf(EinsumKernel, {&m}, Eq("ijk->i")).find("Einsum: equation term 'ijk'"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(EinsumKernel, {&m, &m}, Eq("ij,jk->ik")).find("Einsum: input 1"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(EinsumKernel, {&m}, Eq("ij->k")).find("no input has"), std::string::npos);
  EXPECT_NE(KernelErrorOf(EinsumKernel, {&m}, Eq("i#->i")).find("character"), std::string::npos);
  EXPECT_NE(KernelErrorOf(EinsumKernel, {&m}, Eq("ij,ij->i")).find("2 input terms"),
            std::string::npos);
  const Tensor b(DType::kBool, Shape({1}));
  EXPECT_NE(KernelErrorOf(EinsumKernel, {&b}, Eq("i->i")).find("Einsum"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
