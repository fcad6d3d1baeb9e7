// GridSample: hand-worked values, the reference on random shapes at every
// mode, padding and alignment (1, 2, 3 and 7 threads, bit-identical), and
// errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "kernels/vision/vision.h"
#include "kernels/vision/vision_reference.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::RandomTensor;
using testing::TensorValues;

Attributes Options(const std::string& mode, const std::string& padding, int64_t align) {
  Attributes a;
  a.set("mode", mode).set("padding_mode", padding).set("align_corners", align);
  return a;
}

TEST(GridSample, HandWorkedLinearAndNearest) {
  // X = [[1 2] [3 4]] (H = W = 2). align_corners = 0: x = ((g + 1) * 2 - 1) / 2
  // = g + 0.5. Point (0, 0) -> (0.5, 0.5): mean of all four = 2.5. Point
  // (-1, -1) -> (-0.5, -0.5): only X[0][0] with weight 0.25 under zero
  // padding -> 0.25; border clamps to (0, 0) -> 1.
  const Tensor x = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor grid = Tensor::from_vector<float>({1, 1, 2, 2}, {0, 0, -1, -1});
  const auto zeros = TensorValues<float>(
      CallSingleOutput(GridSampleKernel, {&x, &grid}, Options("linear", "zeros", 0)));
  EXPECT_FLOAT_EQ(zeros[0], 2.5f);
  EXPECT_FLOAT_EQ(zeros[1], 0.25f);
  const auto border = TensorValues<float>(
      CallSingleOutput(GridSampleKernel, {&x, &grid}, Options("bilinear", "border", 0)));
  EXPECT_FLOAT_EQ(border[1], 1.0f);
  // Nearest: (0.5, 0.5) rounds half to even -> (0, 0) -> 1.
  const auto nearest = TensorValues<float>(
      CallSingleOutput(GridSampleKernel, {&x, &grid}, Options("nearest", "zeros", 0)));
  EXPECT_FLOAT_EQ(nearest[0], 1.0f);
  // align_corners = 1: g = 1 -> x = 1 exactly: X[1][1] = 4; g = (1, -1)
  // (x = width 1, y = height 0) -> X[0][1] = 2.
  const Tensor corners = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 1, 1, -1});
  const auto aligned = TensorValues<float>(
      CallSingleOutput(GridSampleKernel, {&x, &corners}, Options("linear", "zeros", 1)));
  EXPECT_FLOAT_EQ(aligned[0], 4.0f);
  EXPECT_FLOAT_EQ(aligned[1], 2.0f);
}

TEST(GridSample, HandWorkedReflectionAndCubic) {
  // 1-D along W (H = 1): X = [1 2 3], align_corners = 1, g = -1.5 -> x =
  // (-0.5) / 2 * 2 = -0.5: reflected at 0 -> 0.5 -> 1.5.
  const Tensor x = Tensor::from_vector<float>({1, 1, 1, 3}, {1, 2, 3});
  const Tensor grid = Tensor::from_vector<float>({1, 1, 1, 2}, {-1.5f, -1});
  EXPECT_FLOAT_EQ(TensorValues<float>(CallSingleOutput(GridSampleKernel, {&x, &grid},
                                                       Options("linear", "reflection", 1)))[0],
                  1.5f);
  // Cubic at an integer coordinate returns the sample: weights (0, 1, 0, 0).
  const Tensor at_one = Tensor::from_vector<float>({1, 1, 1, 2}, {0, -1});
  EXPECT_NEAR(TensorValues<float>(CallSingleOutput(GridSampleKernel, {&x, &at_one},
                                                   Options("cubic", "border", 1)))[0],
              2.0f, 1e-6);
}

TEST(GridSample, MatchesReferenceAcrossThreads) {
  const std::vector<std::vector<int64_t>> x_shapes = {
      {1, 1, 3, 2}, {2, 3, 5, 7}, {1, 2, 1, 1}, {2, 2, 3, 2, 4}, {1, 1, 2, 3, 1}};
  int seed = 1;
  for (const auto& xs : x_shapes) {
    std::vector<int64_t> gs = {xs[0]};
    for (size_t d = 2; d < xs.size(); ++d) gs.push_back(static_cast<int64_t>(d) + 1);
    gs.push_back(static_cast<int64_t>(xs.size()) - 2);
    const Tensor x = RandomTensor(DType::kFloat32, Shape(xs), seed++);
    const Tensor grid = RandomTensor(DType::kFloat32, Shape(gs), seed++, -1.6, 1.6);
    for (const char* mode : {"nearest", "linear", "cubic"}) {
      for (const char* padding : {"zeros", "border", "reflection"}) {
        for (int64_t align : {0, 1}) {
          const Attributes attrs = Options(mode, padding, align);
          const Tensor expected =
              vision::GridSampleReference(x, grid, vision::ParseGridSampleOptions(attrs));
          Tensor first;
          for (int threads : testing::kThreadCounts) {
            auto pool = testing::PoolWithThreads(threads);
            const Tensor y = CallSingleOutput(GridSampleKernel, {&x, &grid}, attrs, pool.get());
            EXPECT_TENSORS_NEAR(y, expected, 1e-5, 1e-5);
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
}

TEST(GridSample, Float64AndEmptyOutput) {
  const Tensor x = RandomTensor(DType::kFloat64, Shape({1, 2, 4, 3}), 7);
  const Tensor grid = RandomTensor(DType::kFloat64, Shape({1, 5, 2, 2}), 8, -1.2, 1.2);
  const Attributes attrs = Options("cubic", "reflection", 0);
  EXPECT_TENSORS_NEAR(CallSingleOutput(GridSampleKernel, {&x, &grid}, attrs),
                      vision::GridSampleReference(x, grid, vision::ParseGridSampleOptions(attrs)),
                      1e-12, 1e-12);
  const Tensor empty_grid = Tensor::from_vector<double>({1, 0, 2, 2}, {});
  EXPECT_EQ(CallSingleOutput(GridSampleKernel, {&x, &empty_grid}, attrs).shape(),
            Shape({1, 2, 0, 2}));
}

TEST(GridSample, Errors) {
  const Tensor x = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor bad_grid = Tensor::from_vector<float>({1, 1, 1, 3}, {0, 0, 0});
  EXPECT_NE(KernelErrorOf(GridSampleKernel, {&x, &bad_grid}).find("GridSample: input 'grid'"),
            std::string::npos);
  const Tensor grid = Tensor::from_vector<float>({1, 1, 1, 2}, {0, 0});
  EXPECT_NE(KernelErrorOf(GridSampleKernel, {&x, &grid}, Options("area", "zeros", 0))
                .find("attribute 'mode'"),
            std::string::npos);
  EXPECT_NE(KernelErrorOf(GridSampleKernel, {&x, &grid}, Options("linear", "wrap", 0))
                .find("attribute 'padding_mode'"),
            std::string::npos);
  const Tensor ints = Tensor::from_vector<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_NE(KernelErrorOf(GridSampleKernel, {&ints, &grid}).find("GridSample"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
