// Window functions and MelWeightMatrix: values from their formulas worked
// by hand, output dtypes, and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/signal/signal.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::CallSingleOutput;
using testing::KernelErrorOf;
using testing::TensorValues;

TEST(Windows, HandWorkedValues) {
  const Tensor four = Tensor::from_vector<int64_t>({}, {4});
  // Periodic Hann, N = 4: sin^2(pi n / 4) = 0, 0.5, 1, 0.5.
  const auto hann = TensorValues<float>(CallSingleOutput(HannWindowKernel, {&four}));
  const std::vector<float> hann_want = {0, 0.5f, 1, 0.5f};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(hann[i], hann_want[i], 1e-7);
  // Symmetric Hamming, N = 3: 25/46 - 21/46 cos(2 pi n / 3): 4/46, 0.77174, 0.77174, 4/46.
  Attributes symmetric;
  symmetric.set("periodic", int64_t{0});
  const auto hamming =
      TensorValues<float>(CallSingleOutput(HammingWindowKernel, {&four}, symmetric));
  EXPECT_NEAR(hamming[0], 4.0 / 46, 1e-7);
  EXPECT_NEAR(hamming[1], 25.0 / 46 + 21.0 / 92, 1e-6);
  EXPECT_NEAR(hamming[3], 4.0 / 46, 1e-7);
  // Periodic Blackman, N = 4, n = 2: 0.42 + 0.5 + 0.08 = 1.
  Attributes f64;
  f64.set("output_datatype", int64_t{11});
  const Tensor black = CallSingleOutput(BlackmanWindowKernel, {&four}, f64);
  EXPECT_EQ(black.dtype(), DType::kFloat64);
  EXPECT_NEAR(TensorValues<double>(black)[2], 1.0, 1e-12);
  EXPECT_NEAR(TensorValues<double>(black)[0], 0.0, 1e-12);
}

TEST(Windows, Errors) {
  const Tensor negative = Tensor::from_vector<int64_t>({}, {-1});
  EXPECT_NE(KernelErrorOf(HannWindowKernel, {&negative}).find("HannWindow: input 'size'"),
            std::string::npos);
  const Tensor f = Tensor::from_vector<float>({}, {4});
  EXPECT_NE(KernelErrorOf(HammingWindowKernel, {&f}).find("HammingWindow"), std::string::npos);
  const Tensor four = Tensor::from_vector<int64_t>({}, {4});
  Attributes bad;
  bad.set("output_datatype", int64_t{8});  // STRING
  EXPECT_NE(KernelErrorOf(BlackmanWindowKernel, {&four}, bad).find("output_datatype"),
            std::string::npos);
}

TEST(MelWeightMatrix, TriangularFilters) {
  // 2 mel bins, dft 16 (9 spectrogram bins), rate 16, edges 0..8 Hz: the
  // mel points are near-linear at these frequencies, and every filter is
  // a triangle rising to 1 at its center bin and falling after it.
  const Tensor bins = Tensor::from_vector<int64_t>({}, {2});
  const Tensor dft = Tensor::from_vector<int64_t>({}, {16});
  const Tensor rate = Tensor::from_vector<int64_t>({}, {16});
  const Tensor lo = Tensor::from_vector<float>({}, {0});
  const Tensor hi = Tensor::from_vector<float>({}, {8});
  const Tensor y = CallSingleOutput(MelWeightMatrixKernel, {&bins, &dft, &rate, &lo, &hi});
  EXPECT_EQ(y.shape(), Shape({9, 2}));
  // Points: mel step = m(8) / 4; f_i = 700 (10^(i m(8) / 4 / 2595) - 1) ~
  // 0, 2, 4, 6 Hz (nearly linear), bins floor(17 f / 16) = 0, 2, 4, 6.
  // Filter 0: 0, 0.5, 1 at bins 0..2, then 0.5 at bin 3.
  const auto v = TensorValues<float>(y);
  EXPECT_FLOAT_EQ(v[0 * 2 + 0], 0.0f);
  EXPECT_FLOAT_EQ(v[1 * 2 + 0], 0.5f);
  EXPECT_FLOAT_EQ(v[2 * 2 + 0], 1.0f);
  EXPECT_FLOAT_EQ(v[3 * 2 + 0], 0.5f);
  EXPECT_FLOAT_EQ(v[4 * 2 + 1], 1.0f);
}

}  // namespace
}  // namespace loom::kernels
