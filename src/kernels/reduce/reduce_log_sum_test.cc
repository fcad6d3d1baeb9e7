// ReduceLogSum: hand-computed values, the reference (log of the double
// sum) over axis sets at 1, 2, 3 and 7 threads, the empty set and dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_reference.h"
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

Tensor Axes(const std::vector<int64_t>& axes) {
  return Tensor::from_vector<int64_t>({static_cast<int64_t>(axes.size())}, axes);
}

TEST(ReduceLogSum, HandComputedValues) {
  const Tensor x = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  const Tensor axes = Axes({1});
  const Tensor y =
      CallSingleOutput(ReduceLogSumKernel, {&x, &axes}, Attributes().set("keepdims", int64_t{0}));
  EXPECT_EQ(y.shape(), Shape({2}));
  EXPECT_EQ(TensorValues<float>(y), (std::vector<float>{std::log(3.0f), std::log(7.0f)}));
  const Tensor all = CallSingleOutput(ReduceLogSumKernel, {&x});
  EXPECT_EQ(all.shape(), Shape({1, 1}));
  EXPECT_FLOAT_EQ(TensorValues<float>(all)[0], std::log(10.0f));
}

TEST(ReduceLogSum, EmptySetIsMinusInfinity) {
  const Tensor x(DType::kFloat32, Shape({2, 0, 3}));
  const Tensor axes = Axes({1});
  const Tensor y = CallSingleOutput(ReduceLogSumKernel, {&x, &axes});
  EXPECT_EQ(y.shape(), Shape({2, 1, 3}));
  for (float v : TensorValues<float>(y)) EXPECT_EQ(v, -std::numeric_limits<float>::infinity());
}

TEST(ReduceLogSum, MatchesReference) {
  uint32_t seed = 11;
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int>>> cases = {
      {{3, 4, 5}, {0}}, {{3, 4, 5}, {2}}, {{3, 4, 5}, {0, 2}}, {{7, 1, 13}, {1, 2}},
      {{1}, {0}},       {{2, 3}, {0, 1}}, {{40000}, {0}}};
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const auto& [dims, axes] : cases) {
      // Positive values: a log of a negative sum is NaN, tested nowhere.
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, 0.1, 2.0);
      const Tensor axes_tensor = Axes(std::vector<int64_t>(axes.begin(), axes.end()));
      for (bool keepdims : {true, false}) {
        const Attributes attrs = Attributes().set("keepdims", int64_t{keepdims});
        const Tensor expected = ReduceReference("ReduceLogSum", x, axes, keepdims);
        for (Isa isa : testing::SupportedIsas()) {
          const Tensor first =
              CallSingleOutput(ReduceLogSumKernel, {&x, &axes_tensor}, attrs, nullptr, isa);
          EXPECT_TENSORS_NEAR(first, expected, 1e-5, 1e-6);
          for (int threads : kThreadCounts) {
            auto pool = PoolWithThreads(threads);
            EXPECT_TRUE(BitwiseEqual(
                CallSingleOutput(ReduceLogSumKernel, {&x, &axes_tensor}, attrs, pool.get(), isa),
                first))
                << IsaName(isa) << " threads " << threads;
          }
        }
      }
    }
  }
}

TEST(ReduceLogSum, RefusesIntegers) {
  const Tensor i = Tensor::from_vector<int32_t>({2}, {1, 2});
  EXPECT_NE(KernelErrorOf(ReduceLogSumKernel, {&i}).find("ReduceLogSum: input 'data'"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
