// AffineGrid and RoiAlign: hand-worked values, the references on random
// inputs at 1, 2, 3 and 7 threads (bit-identical), and errors.
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

TEST(AffineGrid, IdentityGivesBaseCoordinates) {
  // Identity theta, W = 2, H = 1: align_corners 0 -> x = -0.5, 0.5 (cell
  // centers), y = 0; align_corners 1 -> x = -1, 1, y = -1 (one row).
  const Tensor theta = Tensor::from_vector<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor size = Tensor::from_vector<int64_t>({4}, {1, 1, 1, 2});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(AffineGridKernel, {&theta, &size})),
            (std::vector<float>{-0.5f, 0, 0.5f, 0}));
  Attributes corners;
  corners.set("align_corners", int64_t{1});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(AffineGridKernel, {&theta, &size}, corners)),
            (std::vector<float>{-1, -1, 1, -1}));
  // A translation by (0.25, -1) adds to every point.
  const Tensor shift = Tensor::from_vector<float>({1, 2, 3}, {1, 0, 0.25f, 0, 1, -1});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(AffineGridKernel, {&shift, &size})),
            (std::vector<float>{-0.25f, -1, 0.75f, -1}));
}

TEST(AffineGrid, MatchesReferenceAcrossThreads) {
  for (const std::vector<int64_t>& size :
       std::vector<std::vector<int64_t>>{{2, 3, 5, 7}, {1, 1, 1, 1}, {2, 1, 3, 4, 5}}) {
    const int64_t k = static_cast<int64_t>(size.size()) - 2;
    const Tensor theta = RandomTensor(DType::kFloat32, Shape({size[0], k, k + 1}), 9);
    const Tensor size_t_ = Tensor::from_vector<int64_t>({static_cast<int64_t>(size.size())}, size);
    for (int64_t align : {0, 1}) {
      Attributes attrs;
      attrs.set("align_corners", align);
      const Tensor expected = vision::AffineGridReference(theta, size, align == 1);
      for (int threads : testing::kThreadCounts) {
        auto pool = testing::PoolWithThreads(threads);
        EXPECT_TENSORS_NEAR(
            CallSingleOutput(AffineGridKernel, {&theta, &size_t_}, attrs, pool.get()), expected,
            1e-6, 1e-6);
      }
    }
  }
}

TEST(RoiAlign, HandWorkedAverage) {
  // X = 0..15 on a 4x4 plane (value = 4y + x); bilinear samples of a plane
  // linear in x and y equal the plane at the sample point. ROI (0, 0)-(2, 2)
  // half_pixel: shifted to (-0.5, -0.5)-(1.5, 1.5), one bin, 2x2 samples at
  // 0, 1 (each axis): mean = 4 * 0.5 + 0.5 = 2.5.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  const Tensor x = Tensor::from_vector<float>({1, 1, 4, 4}, v);
  const Tensor rois = Tensor::from_vector<float>({1, 4}, {0, 0, 2, 2});
  const Tensor batch = Tensor::from_vector<int64_t>({1}, {0});
  Attributes attrs;
  attrs.set("sampling_ratio", int64_t{2});
  EXPECT_FLOAT_EQ(
      TensorValues<float>(CallSingleOutput(RoiAlignKernel, {&x, &rois, &batch}, attrs))[0], 2.5f);
  // output_half_pixel: samples at 0.5, 1.5: mean 4 + 1 = 5.
  attrs.set("coordinate_transformation_mode", std::string("output_half_pixel"));
  EXPECT_FLOAT_EQ(
      TensorValues<float>(CallSingleOutput(RoiAlignKernel, {&x, &rois, &batch}, attrs))[0], 5.0f);
}

TEST(RoiAlign, MatchesReferenceAcrossThreads) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({2, 3, 10, 7}), 21);
  const Tensor rois = Tensor::from_vector<float>(
      {4, 4}, {0, 0, 6, 9, 1.5f, 2.5f, 4, 3, -2, -1, 12, 12, 5, 5, 5.2f, 5.1f});
  const Tensor batch = Tensor::from_vector<int64_t>({4}, {0, 1, 1, 0});
  for (const char* mode : {"avg", "max"}) {
    for (const char* ctm : {"half_pixel", "output_half_pixel"}) {
      for (int64_t ratio : {0, 2}) {
        Attributes attrs;
        attrs.set("mode", std::string(mode))
            .set("coordinate_transformation_mode", std::string(ctm))
            .set("sampling_ratio", ratio)
            .set("output_height", int64_t{3})
            .set("output_width", int64_t{2})
            .set("spatial_scale", 0.75f);
        const Tensor expected =
            vision::RoiAlignReference(x, rois, batch, ParseRoiAlignOptions(attrs));
        Tensor first;
        for (int threads : testing::kThreadCounts) {
          auto pool = testing::PoolWithThreads(threads);
          const Tensor y = CallSingleOutput(RoiAlignKernel, {&x, &rois, &batch}, attrs, pool.get());
          EXPECT_TENSORS_NEAR(y, expected, 1e-5, 1e-5);
          if (threads == 1) {
            first = y;
          } else {
            EXPECT_TRUE(BitwiseEqual(y, first));
          }
        }
      }
    }
  }
}

TEST(RoiAlign, Errors) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 1, 4, 4}), 1);
  const Tensor rois = Tensor::from_vector<float>({1, 4}, {0, 0, 2, 2});
  const Tensor bad_batch = Tensor::from_vector<int64_t>({1}, {3});
  EXPECT_NE(KernelErrorOf(RoiAlignKernel, {&x, &rois, &bad_batch})
                .find("RoiAlign: input 'batch_indices'"),
            std::string::npos);
  const Tensor batch = Tensor::from_vector<int64_t>({1}, {0});
  Attributes bad;
  bad.set("mode", std::string("sum"));
  EXPECT_NE(KernelErrorOf(RoiAlignKernel, {&x, &rois, &batch}, bad).find("attribute 'mode'"),
            std::string::npos);
  const Tensor theta = Tensor::from_vector<float>({1, 2, 2}, {1, 0, 0, 1});
  const Tensor size = Tensor::from_vector<int64_t>({4}, {1, 1, 2, 2});
  EXPECT_NE(KernelErrorOf(AffineGridKernel, {&theta, &size}).find("AffineGrid: input 'theta'"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
