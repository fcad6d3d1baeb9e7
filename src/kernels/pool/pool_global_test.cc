#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/pool/pool.h"
#include "kernels/pool/pool_reference.h"
#include "kernels/pool/pool_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CompareTensors;
using testing::ForEachIsaAndThreadCount;

Tensor Pool(KernelFn fn, const Tensor& x, KernelContext ctx = {}) {
  std::vector<Tensor> out = CallKernel(fn, ctx, Attributes(), {&x});
  EXPECT_EQ(out.size(), 1u);
  return out[0];
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.num_elements());
}

TEST(GlobalPool, HandComputed) {
  const Tensor x = Tensor::from_vector<float>({1, 2, 2, 2}, {1, 2, 3, 4, -1, -5, -2, -3});
  ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
    const Tensor max = Pool(GlobalMaxPoolKernel, x, ctx);
    EXPECT_EQ(max.shape(), Shape({1, 2, 1, 1}));
    EXPECT_EQ(Values(max), (std::vector<float>{4, -1})) << label;
    EXPECT_EQ(Values(Pool(GlobalAveragePoolKernel, x, ctx)), (std::vector<float>{2.5, -2.75}))
        << label;
  });
  // Rank 3 and rank 2 (no spatial axes: a copy).
  const Tensor x3 = Tensor::from_vector<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(Pool(GlobalAveragePoolKernel, x3).shape(), Shape({2, 1, 1}));
  EXPECT_EQ(Values(Pool(GlobalAveragePoolKernel, x3)), (std::vector<float>{2, 5}));
  EXPECT_EQ(Values(Pool(GlobalMaxPoolKernel, x3)), (std::vector<float>{3, 6}));
  const Tensor x2 = Tensor::from_vector<float>({1, 3}, {7, 8, 9});
  EXPECT_EQ(Values(Pool(GlobalMaxPoolKernel, x2)), (std::vector<float>{7, 8, 9}));
}

TEST(GlobalPool, MaxPropagatesNaNFromAnyLane) {
  for (int64_t at : {0, 5, 40, 99}) {
    Tensor x = testing::RandomTensor(DType::kFloat32, Shape({1, 1, 10, 10}), 1);
    x.data<float>()[at] = std::numeric_limits<float>::quiet_NaN();
    for (Isa isa : testing::SupportedIsas()) {
      EXPECT_TRUE(std::isnan(Pool(GlobalMaxPoolKernel, x, {nullptr, isa}).data<float>()[0]))
          << "NaN at " << at << " " << IsaName(isa);
    }
  }
}

TEST(GlobalPool, MatchesReferenceAndIsBitExactAcrossThreadsAndIsas) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1, 512, 7, 7}, {1, 1280, 7, 7}, {2, 3, 1, 1},  {3, 5, 17},    {2, 4, 3, 5, 7},
      {1, 1, 1000},   {0, 3, 4, 4},    {64, 300, 33}, {1, 2, 31, 33}};
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (const std::vector<int64_t>& shape : shapes) {
      const Tensor x = testing::RandomTensor(dtype, Shape(shape), 9);
      const Tensor expected_max = GlobalMaxPoolReference(x);
      const Tensor expected_average = GlobalAveragePoolReference(x);
      const double tolerance = dtype == DType::kFloat32 ? 1e-5 : 1e-12;
      Tensor first_average;
      ForEachIsaAndThreadCount([&](const KernelContext& ctx, const std::string& label) {
        const std::string where = Shape(shape).to_string() + " " + label;
        EXPECT_TRUE(BitwiseEqual(Pool(GlobalMaxPoolKernel, x, ctx), expected_max)) << where;
        const Tensor average = Pool(GlobalAveragePoolKernel, x, ctx);
        EXPECT_EQ(CompareTensors(average, expected_average, tolerance, tolerance), "") << where;
        if (first_average.num_elements() == 0) first_average = average;
        EXPECT_TRUE(BitwiseEqual(average, first_average)) << where;
      });
    }
  }
}

TEST(GlobalPool, InvalidArgumentsAreClearErrors) {
  auto message_of = [](KernelFn fn, const Tensor& x) -> std::string {
    try {
      Pool(fn, x);
    } catch (const InvalidArgumentError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message_of(GlobalMaxPoolKernel, Tensor(DType::kUInt8, Shape({1, 1, 2, 2}))),
            "GlobalMaxPool: input 'X' must have dtype one of float32, float64 (got uint8)");
  EXPECT_EQ(message_of(GlobalAveragePoolKernel, Tensor(DType::kFloat32, Shape({3}))),
            "GlobalAveragePool: input 'X' must have rank >= 2 (N and C) (got shape [3])");
  EXPECT_EQ(message_of(GlobalAveragePoolKernel, Tensor(DType::kFloat32, Shape({1, 2, 0, 3}))),
            "GlobalAveragePool: input 'X' must have a non-empty spatial extent (got shape "
            "[1, 2, 0, 3])");
}

}  // namespace
}  // namespace loom::kernels
