#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/reduce/reduce.h"
#include "kernels/reduce/reduce_reference.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"

namespace loom::kernels {
namespace {

using testing::BitwiseEqual;
using testing::kThreadCounts;
using testing::PoolWithThreads;
using testing::RandomTensor;
using testing::SupportedIsas;

Tensor Arg(KernelFn fn, const Tensor& x, int64_t axis, bool keepdims, bool last,
           const KernelContext& ctx = {}) {
  Attributes attrs;
  attrs.set("axis", axis)
      .set("keepdims", int64_t{keepdims})
      .set("select_last_index", int64_t{last});
  return CallKernel(fn, ctx, attrs, {&x})[0];
}

std::vector<int64_t> Values(const Tensor& t) {
  const int64_t* p = t.data<int64_t>();
  return std::vector<int64_t>(p, p + t.num_elements());
}

TEST(ArgReduce, HandComputedValues) {
  // [[1, 5, 5], [7, 2, 7]]
  const Tensor x = Tensor::from_vector<float>({2, 3}, {1, 5, 5, 7, 2, 7});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, x, 1, false, false)), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Values(Arg(ArgMaxKernel, x, 1, false, true)), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values(Arg(ArgMinKernel, x, 0, false, false)), (std::vector<int64_t>{0, 1, 0}));
  const Tensor kept = Arg(ArgMinKernel, x, -1, true, false);
  EXPECT_EQ(kept.shape(), Shape({2, 1}));
  EXPECT_EQ(kept.dtype(), DType::kInt64);
  EXPECT_EQ(Values(kept), (std::vector<int64_t>{0, 1}));
  const Tensor i8 = Tensor::from_vector<int8_t>({4}, {3, -128, 127, 127});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, i8, 0, false, true)), (std::vector<int64_t>{3}));
  EXPECT_EQ(Values(Arg(ArgMinKernel, i8, 0, false, false)), (std::vector<int64_t>{1}));
}

TEST(ArgReduce, NewDtypesHandComputed) {
  const Tensor i16 = Tensor::from_vector<int16_t>({4}, {-32768, 32767, 5, 32767});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, i16, 0, false, false)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values(Arg(ArgMaxKernel, i16, 0, false, true)), (std::vector<int64_t>{3}));
  EXPECT_EQ(Values(Arg(ArgMinKernel, i16, 0, false, false)), (std::vector<int64_t>{0}));
  // 2^63 and 2^64 - 1 are the largest, not negative.
  const Tensor u64 = Tensor::from_vector<uint64_t>({4}, {1, uint64_t{1} << 63, ~uint64_t{0}, 0});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, u64, 0, false, false)), (std::vector<int64_t>{2}));
  EXPECT_EQ(Values(Arg(ArgMinKernel, u64, 0, false, false)), (std::vector<int64_t>{3}));
  const Tensor u16 = Tensor::from_vector<uint16_t>({2, 2}, {65535, 0, 1, 2});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, u16, 1, false, false)), (std::vector<int64_t>{0, 1}));
  const Tensor u32 = Tensor::from_vector<uint32_t>({3}, {7, 4294967295u, 7});
  EXPECT_EQ(Values(Arg(ArgMinKernel, u32, 0, false, true)), (std::vector<int64_t>{2}));
  const Tensor bf = Tensor::from_vector<BFloat16>(
      {4}, {BFloat16(1.0f), BFloat16(-3.0f), BFloat16::from_bits(0x7fc0), BFloat16(-3.0f)});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, bf, 0, false, false)), (std::vector<int64_t>{2}));  // NaN
  const Tensor bf_finite =
      Tensor::from_vector<BFloat16>({3}, {BFloat16(1.0f), BFloat16(-3.0f), BFloat16(-3.0f)});
  EXPECT_EQ(Values(Arg(ArgMinKernel, bf_finite, 0, false, true)), (std::vector<int64_t>{2}));
}

TEST(ArgReduce, NanIsTheExtreme) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = Tensor::from_vector<float>({5}, {1, nan, 9, nan, -3});
  EXPECT_EQ(Values(Arg(ArgMaxKernel, x, 0, false, false)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values(Arg(ArgMinKernel, x, 0, false, false)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Values(Arg(ArgMaxKernel, x, 0, false, true)), (std::vector<int64_t>{3}));
}

TEST(ArgReduce, MatchesReferenceAtEveryThreadCount) {
  const std::vector<std::vector<int64_t>> shapes = {
      {1}, {7}, {3, 1}, {1, 5}, {13, 67}, {67, 13}, {2, 3, 1031}, {5, 1, 2100}, {4, 0, 3}};
  uint32_t seed = 1;
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kBFloat16, DType::kInt32,
                      DType::kInt64, DType::kInt8, DType::kUInt8, DType::kInt16, DType::kUInt16,
                      DType::kUInt32, DType::kUInt64}) {
    for (const auto& dims : shapes) {
      // Few distinct integer values, so ties (first vs last index) are common.
      const Tensor x = RandomTensor(dtype, Shape(dims), ++seed, -4, 4);
      for (int axis = 0; axis < static_cast<int>(dims.size()); ++axis) {
        if (dims[static_cast<size_t>(axis)] == 0) continue;
        for (bool last : {false, true}) {
          for (bool is_max : {true, false}) {
            const Tensor expected = ArgReduceReference(is_max, x, axis, true, last);
            for (int threads : kThreadCounts) {
              auto pool = PoolWithThreads(threads);
              // float32 runs the max/min pass with each ISA's primitives.
              for (Isa isa :
                   dtype == DType::kFloat32 ? SupportedIsas() : std::vector<Isa>{Isa::kPortable}) {
                const Tensor y = Arg(is_max ? ArgMaxKernel : ArgMinKernel, x, axis, true, last,
                                     {pool.get(), isa});
                ASSERT_TRUE(BitwiseEqual(y, expected))
                    << dtype_name(dtype) << " shape " << x.shape().to_string() << " axis " << axis
                    << " last " << last << " max " << is_max << " threads " << threads << " isa "
                    << IsaName(isa);
              }
            }
          }
        }
      }
    }
  }
}

TEST(ArgReduce, Errors) {
  const Tensor empty(DType::kFloat32, {2, 0});
  EXPECT_EQ(testing::ErrorMessageOf([&] { Arg(ArgMaxKernel, empty, 1, true, false); }),
            "ArgMax: axis 1 of input 'data' (shape [2, 0]) is empty: no index to return");
  // An empty kept axis is fine: the result is empty.
  EXPECT_EQ(Arg(ArgMaxKernel, empty, 0, true, false).shape(), Shape({1, 0}));
  const Tensor x(DType::kFloat32, {2, 3});
  EXPECT_EQ(testing::ErrorMessageOf([&] { Arg(ArgMinKernel, x, 2, true, false); }),
            "ArgMin: axis 2 is out of range for rank 2");
  const Tensor b(DType::kBool, {2});
  EXPECT_EQ(testing::ErrorMessageOf([&] { Arg(ArgMinKernel, b, 0, true, false); }),
            "ArgMin: input 'data' must have dtype one of float32, float64, bfloat16, int8, uint8, "
            "int16, uint16, int32, uint32, int64, uint64 (got bool)");
  const Tensor scalar(DType::kFloat32, Shape{});
  EXPECT_EQ(testing::ErrorMessageOf([&] { Arg(ArgMaxKernel, scalar, 0, true, false); }),
            "ArgMax: input 'data' must have rank >= 1 (got shape [])");
}

}  // namespace
}  // namespace loom::kernels
