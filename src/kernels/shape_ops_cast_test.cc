#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/onnx_dtype.h"
#include "kernels/reference/shape_ops_reference.h"
#include "kernels/shape_ops.h"
#include "kernels/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::RandomTensor;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Attributes To(int64_t code) { return Attributes().set("to", code); }

template <typename T>
Tensor Vec(const std::vector<T>& v) {
  return Tensor::from_vector(Shape({static_cast<int64_t>(v.size())}), v);
}

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  const Tensor x = Floats(Shape({7}), {-1.7f, 1.7f, kNaN, kInf, -kInf, 3e9f, -2147483648.0f});
  ExpectEverywhere(
      CastKernel, To(6), {&x},
      {Vec<int32_t>({-1, 1, 0, 2147483647, -2147483647 - 1, 2147483647, -2147483647 - 1})});
  const Tensor y = Floats(Shape({5}), {-5, 300, 255.9f, 0.5f, kNaN});
  ExpectEverywhere(CastKernel, To(2), {&y}, {Vec<uint8_t>({0, 255, 255, 0, 0})});
  ExpectEverywhere(CastKernel, To(3), {&y}, {Vec<int8_t>({-5, 127, 127, 0, 0})});
  const Tensor big = Vec<double>({9.3e18, -9.3e18, 9.2e18});
  ExpectEverywhere(CastKernel, To(7), {&big},
                   {Vec<int64_t>({std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min(), 9200000000000000000})});
}

TEST(Cast, IntegerWrapsAndBoolRules) {
  const Tensor x = Vec<int32_t>({200, -129, 7, 0});
  ExpectEverywhere(CastKernel, To(3), {&x}, {Vec<int8_t>({-56, 127, 7, 0})});
  ExpectEverywhere(CastKernel, To(9), {&x}, {Vec<bool>({true, true, true, false})});
  const Tensor f = Floats(Shape({3}), {kNaN, 0.0f, -0.0f});
  ExpectEverywhere(CastKernel, To(9), {&f}, {Vec<bool>({true, false, false})});
  const Tensor b = Vec<bool>({true, false});
  ExpectEverywhere(CastKernel, To(1), {&b}, {Floats(Shape({2}), {1, 0})});
  const Tensor h = Vec<Float16>({Float16(1.5f), Float16(-2.0f)});
  ExpectEverywhere(CastKernel, To(7), {&h}, {Vec<int64_t>({1, -2})});
  const Tensor i = Vec<int64_t>({16777217});  // 2^24 + 1 rounds to even in float
  ExpectEverywhere(CastKernel, To(1), {&i}, {Floats(Shape({1}), {16777216.0f})});
}

TEST(Cast, SameDTypeReturnsTheInput) {
  const Tensor x = Floats(Shape({2}), {1, 2});
  const std::vector<Tensor> out = CallKernel(CastKernel, {}, To(1), {&x});
  EXPECT_TRUE(out.at(0).shares_storage_with(x));
}

// Every pair of dtypes against the reference, with values beyond the int8
// and uint8 ranges and special floats mixed in.
TEST(Cast, MatchesReferenceForAllPairs) {
  uint32_t seed = 1;
  for (DType from : testing::kAllDTypes) {
    Tensor x = RandomTensor(from, Shape({1031}), ++seed, -300, 300);
    if (from == DType::kFloat32) {
      float* p = x.data<float>();
      p[0] = kNaN, p[1] = kInf, p[2] = -kInf, p[3] = 1e20f, p[4] = -1e20f, p[5] = -0.99f;
    } else if (from == DType::kFloat64) {
      double* p = x.data<double>();
      p[0] = std::nan(""), p[1] = 1e300, p[2] = -1e300, p[3] = 70000.0;
    }
    for (DType to : testing::kAllDTypes) {
      if (to == from) continue;
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
      ExpectEverywhere(CastKernel, To(OnnxDataType(to)), {&x}, {CastReference(x, to)});
    }
  }
}

TEST(Cast, RejectsUnknownOrMissingTo) {
  const Tensor x(DType::kFloat32, Shape({2}));
  ExpectError(CastKernel, To(8), {&x}, "Cast", {"'to' = 8", "not a supported"});
  ExpectError(CastKernel, {}, {&x}, "Cast", {"'to' is required"});
}

}  // namespace
}  // namespace loom::kernels
