// NonMaxSuppression: ONNX's documented example worked by hand, the
// reference on random boxes at 1, 2, 3 and 7 threads, and errors.
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

// Six unit boxes [y1, x1, y2, x2]: three near y = 0 overlapping heavily,
// two near y = 10, one at y = 100.
const Tensor kBoxes =
    Tensor::from_vector<float>({1, 6, 4}, {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                                           0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101});
const Tensor kScores =
    Tensor::from_vector<float>({1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f});

TEST(NonMaxSuppression, SuppressByIou) {
  // By score: box 3 (0.95) kept; 0 (0.9) kept (no overlap with 3); 1
  // overlaps 0 with IoU 0.9 / 1.1 > 0.5: dropped; 2 likewise; 4 overlaps 3:
  // dropped; 5 kept. max 3 -> [3, 0, 5].
  const Tensor max_out = Tensor::from_vector<int64_t>({1}, {3});
  const Tensor iou = Tensor::from_vector<float>({1}, {0.5f});
  const Tensor score = Tensor::from_vector<float>({1}, {0.0f});
  const Tensor y =
      CallSingleOutput(NonMaxSuppressionKernel, {&kBoxes, &kScores, &max_out, &iou, &score});
  EXPECT_EQ(y.shape(), Shape({3, 3}));
  EXPECT_EQ(TensorValues<int64_t>(y), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // A score threshold of 0.4 drops box 5; max 2 stops after [3, 0].
  const Tensor high = Tensor::from_vector<float>({1}, {0.4f});
  EXPECT_EQ(TensorValues<int64_t>(CallSingleOutput(NonMaxSuppressionKernel,
                                                   {&kBoxes, &kScores, &max_out, &iou, &high})),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0}));
  // No max_output_boxes_per_class: nothing selected.
  EXPECT_EQ(CallSingleOutput(NonMaxSuppressionKernel, {&kBoxes, &kScores}).shape(), Shape({0, 3}));
}

TEST(NonMaxSuppression, MatchesReferenceAcrossThreads) {
  for (int center : {0, 1}) {
    for (int64_t n : {1, 7, 40}) {
      const Tensor boxes = RandomTensor(DType::kFloat32, Shape({3, n, 4}), 11 + n, 0.0, 4.0);
      const Tensor scores = RandomTensor(DType::kFloat32, Shape({3, 5, n}), 13 + n, 0.0, 1.0);
      const Tensor max_out = Tensor::from_vector<int64_t>({1}, {5});
      const Tensor iou = Tensor::from_vector<float>({1}, {0.3f});
      const Tensor score = Tensor::from_vector<float>({1}, {0.2f});
      Attributes attrs;
      attrs.set("center_point_box", int64_t{center});
      const float threshold = 0.2f;
      const Tensor expected =
          vision::NonMaxSuppressionReference(boxes, scores, 5, 0.3f, &threshold, center == 1);
      for (int threads : testing::kThreadCounts) {
        auto pool = testing::PoolWithThreads(threads);
        const Tensor y = CallSingleOutput(
            NonMaxSuppressionKernel, {&boxes, &scores, &max_out, &iou, &score}, attrs, pool.get());
        EXPECT_TRUE(BitwiseEqual(y, expected)) << threads << " threads, n " << n;
      }
    }
  }
}

TEST(NonMaxSuppression, NoBoxesOrClasses) {
  const Tensor max_out = Tensor::from_vector<int64_t>({1}, {3});
  const Tensor boxes = Tensor::from_vector<float>({2, 0, 4}, {});
  const Tensor scores = Tensor::from_vector<float>({2, 3, 0}, {});
  EXPECT_EQ(CallSingleOutput(NonMaxSuppressionKernel, {&boxes, &scores, &max_out}).shape(),
            Shape({0, 3}));
  const Tensor no_classes = Tensor::from_vector<float>({1, 0, 6}, {});
  EXPECT_EQ(CallSingleOutput(NonMaxSuppressionKernel, {&kBoxes, &no_classes, &max_out}).shape(),
            Shape({0, 3}));
}

TEST(NonMaxSuppression, Errors) {
  const Tensor boxes3 = Tensor::from_vector<float>({1, 1, 3}, {0, 0, 1});
  EXPECT_NE(KernelErrorOf(NonMaxSuppressionKernel, {&boxes3, &kScores})
                .find("NonMaxSuppression: input 'boxes'"),
            std::string::npos);
  const Tensor scores = Tensor::from_vector<float>({1, 1, 5}, {0, 0, 0, 0, 0});
  EXPECT_NE(KernelErrorOf(NonMaxSuppressionKernel, {&kBoxes, &scores}).find("input 'scores'"),
            std::string::npos);
  Attributes bad;
  bad.set("center_point_box", int64_t{2});
  EXPECT_NE(
      KernelErrorOf(NonMaxSuppressionKernel, {&kBoxes, &kScores}, bad).find("center_point_box"),
      std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
