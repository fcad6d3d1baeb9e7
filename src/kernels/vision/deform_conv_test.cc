// DeformConv: zero offsets give a plain convolution (worked by hand), the
// reference on random offsets, masks, groups and offset groups at 1, 2, 3
// and 7 threads and each ISA, and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "kernels/vision/vision.h"
#include "kernels/vision/vision_reference.h"

namespace loom::kernels {
namespace {

using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::RandomTensor;
using testing::TensorValues;

TEST(DeformConv, ZeroOffsetsAndHalfPixelShift) {
  // X 3x3 = 0..8, W 2x2 of ones: zero offsets sum each 2x2 window:
  // 0+1+3+4 = 8, 12, 20, 24.
  std::vector<float> v(9);
  for (int i = 0; i < 9; ++i) v[i] = static_cast<float>(i);
  const Tensor x = Tensor::from_vector<float>({1, 1, 3, 3}, v);
  const Tensor w = Tensor::from_vector<float>({1, 1, 2, 2}, {1, 1, 1, 1});
  const Tensor zero = Tensor::from_vector<float>({1, 8, 2, 2}, std::vector<float>(32, 0));
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(DeformConvKernel, {&x, &w, &zero})),
            (std::vector<float>{8, 12, 20, 24}));
  // Every tap moved by dx = 0.5: samples average horizontal neighbours:
  // window (0,0): 0.5 + 1.5 + 3.5 + 4.5 = 10. Bias 1 and mask 0.5 on top:
  // 10 * 0.5 + 1 = 6.
  std::vector<float> shift(32, 0);
  for (int tap = 0; tap < 4; ++tap) {
    for (int p = 0; p < 4; ++p) shift[(tap * 2 + 1) * 4 + p] = 0.5f;
  }
  const Tensor moved = Tensor::from_vector<float>({1, 8, 2, 2}, shift);
  const Tensor bias = Tensor::from_vector<float>({1}, {1});
  const Tensor mask = Tensor::from_vector<float>({1, 4, 2, 2}, std::vector<float>(16, 0.5f));
  EXPECT_FLOAT_EQ(
      TensorValues<float>(CallSingleOutput(DeformConvKernel, {&x, &w, &moved, &bias, &mask}))[0],
      6.0f);
}

TEST(DeformConv, MatchesReferenceAcrossThreadsAndIsas) {
  struct Case {
    int64_t n, c, h, w, oc, kh, kw, group, offset_group, stride, pad, dilation;
  };
  for (const Case& k : std::vector<Case>{{1, 1, 3, 3, 1, 2, 2, 1, 1, 1, 0, 1},
                                         {2, 4, 7, 5, 6, 3, 3, 2, 2, 2, 1, 1},
                                         {1, 3, 6, 6, 3, 3, 2, 3, 1, 1, 2, 2}}) {
    Attributes attrs;
    attrs.set("group", k.group)
        .set("offset_group", k.offset_group)
        .set("strides", std::vector<int64_t>{k.stride, k.stride})
        .set("pads", std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad})
        .set("dilations", std::vector<int64_t>{k.dilation, k.dilation});
    const int64_t oh = (k.h + 2 * k.pad - ((k.kh - 1) * k.dilation + 1)) / k.stride + 1;
    const int64_t ow = (k.w + 2 * k.pad - ((k.kw - 1) * k.dilation + 1)) / k.stride + 1;
    const Tensor x = RandomTensor(DType::kFloat32, Shape({k.n, k.c, k.h, k.w}), 1);
    const Tensor w = RandomTensor(DType::kFloat32, Shape({k.oc, k.c / k.group, k.kh, k.kw}), 2);
    const Tensor offset = RandomTensor(
        DType::kFloat32, Shape({k.n, k.offset_group * k.kh * k.kw * 2, oh, ow}), 3, -2, 2);
    const Tensor bias = RandomTensor(DType::kFloat32, Shape({k.oc}), 4);
    const Tensor mask =
        RandomTensor(DType::kFloat32, Shape({k.n, k.offset_group * k.kh * k.kw, oh, ow}), 5, 0, 1);
    const DeformConvGeometry g = ParseDeformConvGeometry(attrs, x, w, offset, &bias, &mask);
    const Tensor expected = vision::DeformConvReference(x, w, offset, &bias, &mask, g);
    for (Isa isa : testing::SupportedIsas()) {
      for (int threads : testing::kThreadCounts) {
        auto pool = testing::PoolWithThreads(threads);
        const std::vector<Tensor> y =
            DeformConvKernel(KernelContext{pool.get(), isa}, attrs,
                             std::vector<const Tensor*>{&x, &w, &offset, &bias, &mask});
        EXPECT_TENSORS_NEAR(y[0], expected, 1e-4, 1e-4);
      }
    }
  }
}

TEST(DeformConv, Errors) {
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 1, 3, 3}), 1);
  const Tensor w = RandomTensor(DType::kFloat32, Shape({1, 1, 2, 2}), 2);
  const Tensor bad = RandomTensor(DType::kFloat32, Shape({1, 6, 2, 2}), 3);
  EXPECT_NE(KernelErrorOf(DeformConvKernel, {&x, &w, &bad}).find("DeformConv: input 'offset'"),
            std::string::npos);
  const Tensor x1 = RandomTensor(DType::kFloat32, Shape({1, 1, 3}), 1);
  EXPECT_NE(KernelErrorOf(DeformConvKernel, {&x1, &w, &bad}).find("is not supported"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
