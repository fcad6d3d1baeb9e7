#include <gtest/gtest.h>

#include <limits>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::Int64s;
using testing::RunOne;

template <typename T>
Tensor Scalar(T value) {
  return Tensor::from_vector(Shape(), std::vector<T>{value});
}

TEST(Shape, StartAndEndClamp) {
  const Tensor x(DType::kInt8, Shape({2, 3, 5, 7}));
  ExpectEverywhere(ShapeKernel, {}, {&x}, {Int64s({2, 3, 5, 7})});
  ExpectEverywhere(ShapeKernel, Attributes().set("start", int64_t{1}).set("end", int64_t{-1}), {&x},
                   {Int64s({3, 5})});
  ExpectEverywhere(ShapeKernel, Attributes().set("start", int64_t{-10}).set("end", int64_t{10}),
                   {&x}, {Int64s({2, 3, 5, 7})});
  ExpectEverywhere(ShapeKernel, Attributes().set("start", int64_t{3}).set("end", int64_t{1}), {&x},
                   {Int64s({})});
}

TEST(Size, CountsElements) {
  const Tensor x(DType::kBool, Shape({2, 3, 5}));
  ExpectEverywhere(SizeKernel, {}, {&x}, {Scalar<int64_t>(30)});
  const Tensor empty(DType::kBool, Shape({4, 0}));
  ExpectEverywhere(SizeKernel, {}, {&empty}, {Scalar<int64_t>(0)});
}

TEST(Constant, EachAttributeForm) {
  const Tensor value = Floats(Shape({2}), {1.5f, 2.5f});
  const Tensor copy = RunOne(ConstantKernel, Attributes().set("value", value), {});
  EXPECT_TRUE(testing::BitwiseEqual(copy, value));
  EXPECT_FALSE(copy.shares_storage_with(value));
  ExpectEverywhere(ConstantKernel, Attributes().set("value_float", 3.0f), {},
                   {Scalar<float>(3.0f)});
  ExpectEverywhere(ConstantKernel, Attributes().set("value_floats", std::vector<float>{1, 2}), {},
                   {Floats(Shape({2}), {1, 2})});
  ExpectEverywhere(ConstantKernel, Attributes().set("value_int", int64_t{-4}), {},
                   {Scalar<int64_t>(-4)});
  ExpectEverywhere(ConstantKernel, Attributes().set("value_ints", std::vector<int64_t>{5, 6}), {},
                   {Int64s({5, 6})});
  ExpectError(ConstantKernel, {}, {}, "Constant", {"exactly one", "got 0"});
  ExpectError(ConstantKernel, Attributes().set("value_int", int64_t{1}).set("value_float", 1.0f),
              {}, "Constant", {"got 2"});
  const Tensor one = ConstantKernel({}, Attributes().set("value_string", std::string("a")), {})[0];
  EXPECT_EQ(one.shape(), Shape());
  EXPECT_EQ(one.data<std::string>()[0], "a");
  const Tensor two = ConstantKernel(
      {}, Attributes().set("value_strings", std::vector<std::string>{"b", ""}), {})[0];
  EXPECT_EQ(two.shape(), Shape({2}));
  EXPECT_EQ(two.data<std::string>()[0], "b");
  EXPECT_EQ(two.data<std::string>()[1], "");
  ExpectError(ConstantKernel, Attributes().set("sparse_value", std::string("a")), {}, "Constant",
              {"not supported"});
}

TEST(ConstantOfShape, FillsWithValue) {
  const Tensor shape = Int64s({2, 3});
  ExpectEverywhere(ConstantOfShapeKernel, {}, {&shape},
                   {Floats(Shape({2, 3}), {0, 0, 0, 0, 0, 0})});
  const Attributes seven =
      Attributes().set("value", Tensor::from_vector(Shape({1}), std::vector<int64_t>{7}));
  ExpectEverywhere(ConstantOfShapeKernel, seven, {&shape},
                   {Tensor::from_vector(Shape({2, 3}), std::vector<int64_t>(6, 7))});
  const Tensor scalar_shape = Int64s({});
  ExpectEverywhere(ConstantOfShapeKernel, seven, {&scalar_shape}, {Scalar<int64_t>(7)});
  const Tensor big = Int64s({100, 1000});
  const Attributes half = Attributes().set(
      "value", Tensor::from_vector(Shape({1}), std::vector<Float16>{Float16(0.5f)}));
  ExpectEverywhere(
      ConstantOfShapeKernel, half, {&big},
      {Tensor::from_vector(Shape({100, 1000}), std::vector<Float16>(100000, Float16(0.5f)))});
  // The new dtypes as the value: the bytes are repeated as they are.
  const Tensor three = Int64s({3});
  const uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
  ExpectEverywhere(
      ConstantOfShapeKernel,
      Attributes().set("value", Tensor::from_vector(Shape({1}), std::vector<uint64_t>{kU64Max})),
      {&three}, {Tensor::from_vector(Shape({3}), std::vector<uint64_t>(3, kU64Max))});
  ExpectEverywhere(
      ConstantOfShapeKernel,
      Attributes().set("value", Tensor::from_vector(Shape({1}), std::vector<int16_t>{-32768})),
      {&three}, {Tensor::from_vector(Shape({3}), std::vector<int16_t>(3, -32768))});
  ExpectEverywhere(
      ConstantOfShapeKernel,
      Attributes().set(
          "value",
          Tensor::from_vector(Shape({1}), std::vector<BFloat16>{BFloat16::from_bits(0x4049)})),
      {&three},
      {Tensor::from_vector(Shape({3}), std::vector<BFloat16>(3, BFloat16::from_bits(0x4049)))});
  const Tensor negative = Int64s({2, -1});
  ExpectError(ConstantOfShapeKernel, {}, {&negative}, "ConstantOfShape", {"negative dimension -1"});
  const Attributes two = Attributes().set("value", Floats(Shape({2}), {1, 2}));
  ExpectError(ConstantOfShapeKernel, two, {&shape}, "ConstantOfShape",
              {"exactly 1 element", "[2]"});
}

TEST(Range, ValuesByHand) {
  const Tensor s = Scalar<float>(1), l = Scalar<float>(2.2f), d = Scalar<float>(0.5f);
  ExpectEverywhere(RangeKernel, {}, {&s, &l, &d}, {Floats(Shape({3}), {1.0f, 1.5f, 2.0f})});
  const Tensor si = Scalar<int32_t>(10), li = Scalar<int32_t>(4), di = Scalar<int32_t>(-3);
  ExpectEverywhere(RangeKernel, {}, {&si, &li, &di},
                   {Tensor::from_vector(Shape({2}), std::vector<int32_t>{10, 7})});
  const Tensor up = Scalar<int32_t>(3);
  ExpectEverywhere(RangeKernel, {}, {&si, &li, &up},
                   {Tensor::from_vector(Shape({0}), std::vector<int32_t>{})});
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const Tensor s64 = Scalar<int64_t>(kMin), l64 = Scalar<int64_t>(kMax),
               d64 = Scalar<int64_t>(int64_t{1} << 62);
  ExpectEverywhere(RangeKernel, {}, {&s64, &l64, &d64},
                   {Int64s({kMin, kMin + (int64_t{1} << 62), 0, int64_t{1} << 62})});
  // int16 (ONNX allows it): across the whole range in steps of 16384.
  const Tensor s16 = Scalar<int16_t>(-32768), l16 = Scalar<int16_t>(32767),
               d16 = Scalar<int16_t>(16384);
  ExpectEverywhere(
      RangeKernel, {}, {&s16, &l16, &d16},
      {Tensor::from_vector(Shape({4}), std::vector<int16_t>{-32768, -16384, 0, 16384})});
  const Tensor s16b = Scalar<int16_t>(5), l16b = Scalar<int16_t>(-2), d16b = Scalar<int16_t>(-3);
  ExpectEverywhere(RangeKernel, {}, {&s16b, &l16b, &d16b},
                   {Tensor::from_vector(Shape({3}), std::vector<int16_t>{5, 2, -1})});
  const Tensor sd = Scalar<double>(0), ld = Scalar<double>(1), dd = Scalar<double>(0.25);
  ExpectEverywhere(RangeKernel, {}, {&sd, &ld, &dd},
                   {Tensor::from_vector(Shape({4}), std::vector<double>{0, 0.25, 0.5, 0.75})});
  // Many elements: exercises the parallel path.
  const Tensor zero = Scalar<int64_t>(0), n = Scalar<int64_t>(100000), one = Scalar<int64_t>(1);
  std::vector<int64_t> iota(100000);
  for (int64_t i = 0; i < 100000; ++i) iota[i] = i;
  ExpectEverywhere(RangeKernel, {}, {&zero, &n, &one}, {Int64s(iota)});
}

TEST(Range, RejectsBadArguments) {
  const Tensor s = Scalar<float>(0), l = Scalar<float>(1), zero = Scalar<float>(0);
  ExpectError(RangeKernel, {}, {&s, &l, &zero}, "Range", {"'delta' must not be 0"});
  const Tensor tiny = Scalar<float>(1e-30f), huge = Scalar<float>(1e30f);
  ExpectError(RangeKernel, {}, {&s, &huge, &tiny}, "Range", {"too many elements"});
  const Tensor nan = Scalar<float>(std::numeric_limits<float>::quiet_NaN());
  ExpectError(RangeKernel, {}, {&s, &nan, &l}, "Range", {"too many elements"});
  const Tensor s64 = Scalar<int64_t>(std::numeric_limits<int64_t>::min());
  const Tensor l64 = Scalar<int64_t>(std::numeric_limits<int64_t>::max());
  const Tensor one = Scalar<int64_t>(1);
  ExpectError(RangeKernel, {}, {&s64, &l64, &one}, "Range", {"18446744073709551615 elements"});
  const Tensor i = Scalar<int32_t>(1);
  ExpectError(RangeKernel, {}, {&s, &i, &l}, "Range", {"'limit'", "float32", "got int32"});
  const Tensor vec = Floats(Shape({2}), {1, 2});
  ExpectError(RangeKernel, {}, {&s, &vec, &l}, "Range", {"'limit' must be a scalar"});
  const Tensor b = Scalar<bool>(true);
  ExpectError(RangeKernel, {}, {&b, &b, &b}, "Range", {"'start'", "got bool"});
  const Tensor u = Scalar<uint32_t>(1);  // ONNX's Range has no unsigned type
  ExpectError(RangeKernel, {}, {&u, &u, &u}, "Range", {"'start'", "got uint32"});
}

}  // namespace
}  // namespace loom::kernels
