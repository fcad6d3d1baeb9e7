// MaxRoiPool: bins worked by hand (scaling, rounding, clipping, empty
// bins), random regions bit-identical at 1, 2, 3 and 7 threads, errors.
// python/tests/test_vision_ops.py compares it with ONNX Runtime.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "kernels/vision/vision.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::TensorValues;

Attributes Pooled(int64_t ph, int64_t pw, float scale = 1.0f) {
  return Attributes().set("pooled_shape", std::vector<int64_t>{ph, pw}).set("spatial_scale", scale);
}

// X [1, 1, 4, 4] = 0..15, row-major.
Tensor Ramp() {
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i);
  return Tensor::from_vector<float>({1, 1, 4, 4}, values);
}

TEST(MaxRoiPool, BinsByHand) {
  const Tensor x = Ramp();
  // The whole image in 2 x 2 bins: each bin's bottom-right element.
  const Tensor whole = Tensor::from_vector<float>({1, 5}, {0, 0, 0, 3, 3});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(MaxRoiPoolKernel, {&x, &whole}, Pooled(2, 2))),
            (std::vector<float>{5, 7, 13, 15}));
  // Box x 1..2, y 0..2 (3 rows, 2 columns) in 2 x 1 bins: rows [0, 2) and
  // [1, 3) (floor/ceil of 1.5): max of rows 0-1 = 6, rows 1-2 = 10.
  const Tensor box = Tensor::from_vector<float>({1, 5}, {0, 1, 0, 2, 2});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(MaxRoiPoolKernel, {&x, &box}, Pooled(2, 1))),
            (std::vector<float>{6, 10}));
  // spatial_scale 0.5, rounding half away from zero: x 0.5 -> 1 to 2.5 ->
  // 3; y 1.5 -> 2 to 0.5 -> 1, above it, so one row (2): max of 9..11.
  const Tensor scaled = Tensor::from_vector<float>({1, 5}, {0, 1, 3, 5, 1});
  EXPECT_EQ(
      TensorValues<float>(CallSingleOutput(MaxRoiPoolKernel, {&x, &scaled}, Pooled(1, 1, 0.5f))),
      (std::vector<float>{11}));
  // A box past the image: bins outside it are empty and give 0.
  const Tensor outside = Tensor::from_vector<float>({1, 5}, {0, 2, 2, 9, 9});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(MaxRoiPoolKernel, {&x, &outside}, Pooled(2, 2))),
            (std::vector<float>{15, 0, 0, 0}));
}

TEST(MaxRoiPool, SecondImageAndChannels) {
  // X [2, 2, 2, 2] = -8..7: image 0's planes are negative, which shows the
  // maximum is not clamped at 0.
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i - 8);
  const Tensor x = Tensor::from_vector<float>({2, 2, 2, 2}, values);
  const Tensor rois = Tensor::from_vector<float>({2, 5}, {1, 0, 0, 1, 1, 0, 0, 0, 0, 0});
  const Tensor y = CallSingleOutput(MaxRoiPoolKernel, {&x, &rois}, Pooled(1, 1));
  EXPECT_EQ(y.shape(), Shape({2, 2, 1, 1}));
  // Region 0 (image 1): max of 0..3 = 3, of 4..7 = 7; region 1 (image 0,
  // pixel (0, 0)): -8 and -4.
  EXPECT_EQ(TensorValues<float>(y), (std::vector<float>{3, 7, -8, -4}));
}

TEST(MaxRoiPool, BitIdenticalAcrossThreadCounts) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    const Tensor x = RandomTensor(dtype, Shape({2, 5, 9, 11}), 3);
    Tensor rois = RandomTensor(dtype, Shape({7, 5}), 4, 0.0, 12.0);
    for (int64_t n = 0; n < 7; ++n) {  // batch index 0 or 1
      if (dtype == DType::kFloat32) {
        rois.data<float>()[n * 5] = static_cast<float>(n % 2);
      } else {
        rois.data<double>()[n * 5] = static_cast<double>(n % 2);
      }
    }
    const Attributes attrs = Pooled(3, 2, 0.75f);
    const Tensor first = CallSingleOutput(MaxRoiPoolKernel, {&x, &rois}, attrs);
    for (int threads : kThreadCounts) {
      auto pool = PoolWithThreads(threads);
      EXPECT_TRUE(
          BitwiseEqual(CallSingleOutput(MaxRoiPoolKernel, {&x, &rois}, attrs, pool.get()), first))
          << threads << " threads";
    }
  }
}

TEST(MaxRoiPool, Errors) {
  const Tensor x = Ramp();
  const Tensor rois = Tensor::from_vector<float>({1, 5}, {0, 0, 0, 3, 3});
  const auto error = [&](const Tensor& r, const Attributes& attrs) {
    return KernelErrorOf(MaxRoiPoolKernel, {&x, &r}, attrs);
  };
  EXPECT_NE(error(rois, Pooled(0, 2)).find("pooled_shape"), std::string::npos);
  EXPECT_NE(error(rois, Pooled(2, 2, 0.0f)).find("spatial_scale"), std::string::npos);
  const Tensor image_one = Tensor::from_vector<float>({1, 5}, {1, 0, 0, 3, 3});
  EXPECT_NE(error(image_one, Pooled(1, 1)).find("batch index"), std::string::npos);
  const Tensor half = Tensor::from_vector<float>({1, 5}, {0.5f, 0, 0, 3, 3});
  EXPECT_NE(error(half, Pooled(1, 1)).find("batch index"), std::string::npos);
  const Tensor four = Tensor::from_vector<float>({1, 4}, {0, 0, 3, 3});
  EXPECT_NE(error(four, Pooled(1, 1)).find("[R, 5]"), std::string::npos);
  const Tensor nan = Tensor::from_vector<float>({1, 5}, {0, 0, 0, std::nanf(""), 3});
  EXPECT_NE(error(nan, Pooled(1, 1)).find("not finite"), std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
