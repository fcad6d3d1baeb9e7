// DFT and STFT: the FFT plan against the O(n^2) definition at power-of-two
// and other lengths, hand-worked transforms, the kernel against the
// reference on random shapes (axes, lengths, onesided, inverse) at 1, 2, 3
// and 7 threads with bit-identical results, STFT framing, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/signal/fft_plan.h"
#include "kernels/signal/signal.h"
#include "kernels/signal/signal_reference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using signal::Complex;
using testing::BitwiseEqual;
using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::RandomTensor;
using testing::TensorValues;

Tensor Int64Scalar(int64_t v) { return Tensor::from_vector<int64_t>({}, {v}); }

TEST(FftPlan, MatchesNaiveDftAtEveryLength) {
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 64, 100, 127}) {
    for (bool inverse : {false, true}) {
      std::vector<Complex> in(static_cast<size_t>(n)), got(in.size()), want(in.size()), scratch;
      for (int64_t j = 0; j < n; ++j)
        in[static_cast<size_t>(j)] = Complex(std::sin(j * 1.3), std::cos(j * 0.7));
      signal::FftPlan(n, inverse).Run(in.data(), got.data(), scratch);
      signal::NaiveDft(in.data(), want.data(), n, inverse);
      for (int64_t k = 0; k < n; ++k) {
        EXPECT_NEAR(got[k].real(), want[k].real(), 1e-9 * n) << n << " " << k;
        EXPECT_NEAR(got[k].imag(), want[k].imag(), 1e-9 * n) << n << " " << k;
      }
    }
  }
}

TEST(Dft, HandWorked) {
  // [1 2 3 4] real: X0 = 10, X1 = -2 + 2i, X2 = -2, X3 = -2 - 2i.
  const Tensor x = Tensor::from_vector<float>({4, 1}, {1, 2, 3, 4});
  const Tensor axis = Int64Scalar(0);
  Tensor y = CallSingleOutput(DftKernel, {&x, nullptr, &axis});
  EXPECT_EQ(y.shape(), Shape({4, 2}));
  const std::vector<float> want = {10, 0, -2, 2, -2, 0, -2, -2};
  const std::vector<float> got = TensorValues<float>(y);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  // Onesided: the first 4 / 2 + 1 = 3. Inverse of [10, 0, 0, 0]: 2.5 everywhere.
  Attributes onesided;
  onesided.set("onesided", int64_t{1});
  EXPECT_EQ(CallSingleOutput(DftKernel, {&x, nullptr, &axis}, onesided).shape(), Shape({3, 2}));
  const Tensor spike = Tensor::from_vector<float>({4, 2}, {10, 0, 0, 0, 0, 0, 0, 0});
  Attributes inverse;
  inverse.set("inverse", int64_t{1});
  EXPECT_EQ(TensorValues<float>(CallSingleOutput(DftKernel, {&spike, nullptr, &axis}, inverse)),
            (std::vector<float>{2.5f, 0, 2.5f, 0, 2.5f, 0, 2.5f, 0}));
  // dft_length 2 truncates: [1 2] -> [3, -1].
  const Tensor two = Int64Scalar(2);
  const std::vector<float> cut =
      TensorValues<float>(CallSingleOutput(DftKernel, {&x, &two, &axis}));
  EXPECT_NEAR(cut[0], 3, 1e-6);
  EXPECT_NEAR(cut[2], -1, 1e-6);
}

TEST(Dft, MatchesReferenceAcrossThreads) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t axis, length;  // length -1: the axis' size
  };
  const std::vector<Case> cases = {{{1, 10, 10, 1}, 1, -1}, {{2, 7, 3, 2}, -3, -1},
                                   {{3, 16, 2}, 1, -1},     {{2, 5, 4, 1}, 2, 9},
                                   {{1, 12, 2}, -2, 8},     {{4, 1, 1}, 1, -1}};
  uint32_t seed = 3;
  for (const Case& c : cases) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      const Tensor x = RandomTensor(dtype, Shape(c.shape), seed++);
      const Tensor axis = Int64Scalar(c.axis);
      const Tensor length = Int64Scalar(c.length);
      const int rank = static_cast<int>(c.shape.size());
      const int a = static_cast<int>(c.axis < 0 ? c.axis + rank : c.axis);
      const int64_t n = c.length < 0 ? c.shape[static_cast<size_t>(a)] : c.length;
      for (int inverse : {0, 1}) {
        for (int onesided : {0, 1}) {
          Attributes attrs;
          attrs.set("inverse", int64_t{inverse}).set("onesided", int64_t{onesided});
          const Tensor expected = signal::DftReference(x, a, n, inverse, onesided);
          Tensor first;
          for (int threads : testing::kThreadCounts) {
            auto pool = testing::PoolWithThreads(threads);
            const Tensor y = CallSingleOutput(
                DftKernel, {&x, c.length < 0 ? nullptr : &length, &axis}, attrs, pool.get());
            EXPECT_TENSORS_NEAR(y, expected, 1e-4, 1e-4);
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
}

TEST(Stft, FramesAreWindowedDfts) {
  // signal [1, 10, 1], frame 4, step 3: frames at 0 and 3 (1 + (10 - 4) / 3
  // = 3 frames: 0, 3, 6); each the onesided DFT of the windowed frame.
  const Tensor x = RandomTensor(DType::kFloat32, Shape({2, 10, 1}), 5);
  const Tensor step = Int64Scalar(3);
  const Tensor window = Tensor::from_vector<float>({4}, {0.5f, 1, 1, 0.25f});
  const Tensor y = CallSingleOutput(StftKernel, {&x, &step, &window});
  EXPECT_EQ(y.shape(), Shape({2, 3, 3, 2}));
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t f = 0; f < 3; ++f) {
      std::vector<float> frame(4);
      for (int64_t j = 0; j < 4; ++j) {
        frame[j] = x.data<float>()[b * 10 + f * 3 + j] * window.data<float>()[j];
      }
      const Tensor ft = Tensor::from_vector<float>({4, 1}, frame);
      const Tensor want = signal::DftReference(ft, 0, 4, false, true);
      for (int64_t k = 0; k < 6; ++k) {
        EXPECT_NEAR(y.data<float>()[(b * 3 + f) * 6 + k], want.data<float>()[k], 1e-5);
      }
    }
  }
  // frame_length without a window: a rectangular window, all bins.
  const Tensor length = Int64Scalar(4);
  Attributes twosided;
  twosided.set("onesided", int64_t{0});
  EXPECT_EQ(CallSingleOutput(StftKernel, {&x, &step, nullptr, &length}, twosided).shape(),
            Shape({2, 3, 4, 2}));
}

TEST(Dft, EmptyBatchAndPrimeLength) {
  const Tensor empty = Tensor::from_vector<float>({0, 5, 1}, {});
  const Tensor axis = Int64Scalar(1);
  EXPECT_EQ(CallSingleOutput(DftKernel, {&empty, nullptr, &axis}).shape(), Shape({0, 5, 2}));
  // A constant signal of prime length 13 (Bluestein): all energy in bin 0.
  const Tensor ones = Tensor::from_vector<double>({13, 1}, std::vector<double>(13, 1.0));
  const Tensor axis0 = Int64Scalar(0);
  const std::vector<double> y =
      TensorValues<double>(CallSingleOutput(DftKernel, {&ones, nullptr, &axis0}));
  EXPECT_NEAR(y[0], 13.0, 1e-12);
  for (size_t i = 1; i < y.size(); ++i) EXPECT_NEAR(y[i], 0.0, 1e-12) << i;
}

TEST(Dft, Errors) {
  const Tensor x = Tensor::from_vector<float>({4, 3}, std::vector<float>(12, 0));
  EXPECT_NE(KernelErrorOf(DftKernel, {&x}).find("DFT: input 'input'"), std::string::npos);
  const Tensor ok = Tensor::from_vector<float>({4, 1}, {1, 2, 3, 4});
  const Tensor last = Int64Scalar(-1);
  EXPECT_NE(KernelErrorOf(DftKernel, {&ok, nullptr, &last}).find("DFT: input 'axis'"),
            std::string::npos);
  const Tensor zero = Int64Scalar(0);
  const Tensor axis = Int64Scalar(0);
  EXPECT_NE(KernelErrorOf(DftKernel, {&ok, &zero, &axis}).find("DFT length"), std::string::npos);
  const Tensor signal = Tensor::from_vector<float>({1, 4, 1}, {1, 2, 3, 4});
  const Tensor big = Int64Scalar(8);
  const Tensor step = Int64Scalar(1);
  EXPECT_NE(KernelErrorOf(StftKernel, {&signal, &step, nullptr, &big}).find("STFT"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
