// LpPool and GlobalLpPool: hand-computed windows, the plain reference over strides, pads,
// dilations and p at 1, 2, 3 and 7 threads (bit-identical), auto_pad and
// ceil_mode output shapes, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_lp_reference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::TensorValues;

TEST(LpPool, HandComputedValues) {
  // [1, 1, 4]: windows of 2, stride 2: sqrt(3^2 + 4^2) = 5, sqrt(0 + 0) = 0.
  const Tensor x = Tensor::from_vector<float>({1, 1, 4}, {3, -4, 0, 0});
  const Attributes attrs = Attributes()
                               .set("kernel_shape", std::vector<int64_t>{2})
                               .set("strides", std::vector<int64_t>{2});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(LpPoolKernel, {&x}, attrs)),
            (std::vector<float>{5, 0}));
  // p = 1 with one pad each side: |0| + |3|, |-4| + |0|, |0| + 0 (pad).
  const Attributes l1 =
      Attributes(attrs).set("p", int64_t{1}).set("pads", std::vector<int64_t>{1, 1});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(LpPoolKernel, {&x}, l1)),
            (std::vector<float>{3, 4, 0}));
}

TEST(LpPool, MatchesReference) {
  struct Case {
    std::vector<int64_t> dims, kernel, strides, pads, dilations;
  };
  const std::vector<Case> cases = {
      {{1, 3, 13}, {2}, {1}, {0, 0}, {1}},
      {{2, 2, 7, 9}, {3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}},
      {{1, 1, 4, 4}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {2, 2}},
      {{1, 2, 5, 4, 3}, {2, 2, 2}, {1, 2, 1}, {0, 1, 0, 1, 0, 1}, {1, 1, 1}},
      {{0, 2, 5}, {2}, {1}, {0, 0}, {1}},
      {{1, 1, 1}, {1}, {1}, {0, 0}, {1}}};
  uint32_t seed = 7;
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const Case& c : cases) {
      const Tensor x = RandomTensor(dtype, Shape(c.dims), ++seed);
      for (int p : {1, 2, 3}) {
        const Attributes attrs = Attributes()
                                     .set("kernel_shape", c.kernel)
                                     .set("strides", c.strides)
                                     .set("pads", c.pads)
                                     .set("dilations", c.dilations)
                                     .set("p", int64_t{p});
        const Tensor expected = LpPoolReference(x, c.kernel, c.strides, c.pads, c.dilations, p);
        const Tensor first = CallSingleOutput(LpPoolKernel, {&x}, attrs);
        EXPECT_TENSORS_NEAR(first, expected, 1e-5, 1e-6);
        for (int threads : kThreadCounts) {
          auto pool = PoolWithThreads(threads);
          EXPECT_TRUE(BitwiseEqual(CallSingleOutput(LpPoolKernel, {&x}, attrs, pool.get()), first));
        }
      }
    }
  }
}

TEST(LpPool, AutoPadAndCeilModeShapes) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 1, 5, 5}), 3);
  const Attributes same = Attributes()
                              .set("kernel_shape", std::vector<int64_t>{2, 2})
                              .set("strides", std::vector<int64_t>{2, 2})
                              .set("auto_pad", std::string("SAME_UPPER"));
  EXPECT_EQ(CallSingleOutput(LpPoolKernel, {&x}, same).shape(), Shape({1, 1, 3, 3}));
  const Attributes ceil = Attributes()
                              .set("kernel_shape", std::vector<int64_t>{2, 2})
                              .set("strides", std::vector<int64_t>{2, 2})
                              .set("ceil_mode", int64_t{1});
  EXPECT_EQ(CallSingleOutput(LpPoolKernel, {&x}, ceil).shape(), Shape({1, 1, 3, 3}));
}

TEST(LpPool, Errors) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 1, 4}), 3);
  const Tensor i = Tensor::from_vector<int32_t>({1, 1, 2}, {1, 2});
  const Attributes k2 = Attributes().set("kernel_shape", std::vector<int64_t>{2});
  EXPECT_EQ(KernelErrorOf(LpPoolKernel, {&x}, Attributes(k2).set("p", int64_t{0})),
            "LpPool: attribute 'p' must be >= 1 (got 0)");
  EXPECT_NE(KernelErrorOf(LpPoolKernel, {&i}, k2).find("LpPool: input 'X'"), std::string::npos);
  EXPECT_NE(KernelErrorOf(LpPoolKernel, {&x}).find("LpPool:"), std::string::npos);
}

TEST(GlobalLpPool, WholePlaneByHandAndEdges) {
  // [1, 2, 2, 2]: channel 0 sqrt(1 + 4 + 4 + 16) = 5; channel 1 with p = 1
  // below: |-1| + 2 + |-3| + 4 = 10.
  const Tensor x = Tensor::from_vector<float>({1, 2, 2, 2}, {1, -2, 2, 4, -1, 2, -3, 4});
  const Tensor l2 = CallSingleOutput(GlobalLpPoolKernel, {&x}, Attributes());
  EXPECT_EQ(l2.shape(), Shape({1, 2, 1, 1}));
  EXPECT_FLOAT_EQ(TensorValues<float>(l2)[0], 5.0f);
  EXPECT_FLOAT_EQ(TensorValues<float>(l2)[1], std::sqrt(30.0f));
  const Tensor l1 = CallSingleOutput(GlobalLpPoolKernel, {&x}, Attributes().set("p", int64_t{1}));
  EXPECT_EQ(TensorValues<float>(l1), (std::vector<float>{9, 10}));
  // An empty plane: the root of an empty sum.
  const Tensor empty = Tensor::from_vector<float>({1, 2, 0, 3}, {});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(GlobalLpPoolKernel, {&empty}, Attributes())),
            (std::vector<float>{0, 0}));
  const Tensor flat = Tensor::from_vector<float>({1, 2}, {1, 2});
  EXPECT_NE(KernelErrorOf(GlobalLpPoolKernel, {&flat}, Attributes()).find("GlobalLpPool: "),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(GlobalLpPoolKernel, {&x}, Attributes().set("p", int64_t{0}))
                .find("GlobalLpPool: attribute 'p'"),
            std::string::npos);
}

TEST(GlobalLpPool, MatchesTheReferenceWithTheWholePlaneAsWindow) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{2, 3, 7}, {1, 4, 5, 6}, {2, 1, 3, 2, 4}}) {
    const Tensor x = RandomTensor(DType::kFloat64, Shape(dims), 11);
    const std::vector<int64_t> spatial(dims.begin() + 2, dims.end());
    for (int64_t p : {1, 2, 3}) {
      const Tensor expected =
          LpPoolReference(x, spatial, std::vector<int64_t>(spatial.size(), 1),
                          std::vector<int64_t>(2 * spatial.size(), 0),
                          std::vector<int64_t>(spatial.size(), 1), static_cast<int>(p));
      const Attributes attrs = Attributes().set("p", p);
      const Tensor first = CallSingleOutput(GlobalLpPoolKernel, {&x}, attrs);
      EXPECT_TENSORS_NEAR(first, expected, 1e-12, 1e-12);
      for (int threads : kThreadCounts) {
        auto pool = PoolWithThreads(threads);
        EXPECT_TRUE(
            BitwiseEqual(CallSingleOutput(GlobalLpPoolKernel, {&x}, attrs, pool.get()), first))
            << "p " << p << " threads " << threads;
      }
    }
  }
}

}  // namespace
}  // namespace loom::kernels
