#include "loom/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "loom/errors.h"

namespace loom {
namespace {

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtype_size(DType::kFloat32), 4u);
  EXPECT_EQ(dtype_size(DType::kFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kInt64), 8u);
  EXPECT_EQ(dtype_size(DType::kBool), 1u);
  EXPECT_EQ(dtype_name(DType::kUInt8), "uint8");
  static_assert(dtype_of<double>() == DType::kFloat64);
  static_assert(dtype_of<Float16>() == DType::kFloat16);
}

TEST(DType, AppendedDTypesKeepTheOldNumbers) {
  // The enum's values index tables and registry masks: new dtypes come last.
  EXPECT_EQ(static_cast<int>(DType::kBool), 7);
  EXPECT_EQ(static_cast<int>(DType::kUInt16), 8);
  EXPECT_EQ(static_cast<int>(DType::kBFloat16), 12);
  EXPECT_EQ(static_cast<int>(DType::kString), 13);
  EXPECT_EQ(kNumDTypes, 14);
  const struct {
    DType dtype;
    size_t size;
    const char* name;
  } expected[] = {{DType::kUInt16, 2, "uint16"},
                  {DType::kUInt32, 4, "uint32"},
                  {DType::kUInt64, 8, "uint64"},
                  {DType::kInt16, 2, "int16"},
                  {DType::kBFloat16, 2, "bfloat16"}};
  for (const auto& e : expected) {
    EXPECT_EQ(dtype_size(e.dtype), e.size) << e.name;
    EXPECT_EQ(dtype_name(e.dtype), e.name);
  }
  static_assert(dtype_of<uint16_t>() == DType::kUInt16);
  static_assert(dtype_of<uint32_t>() == DType::kUInt32);
  static_assert(dtype_of<uint64_t>() == DType::kUInt64);
  static_assert(dtype_of<int16_t>() == DType::kInt16);
  static_assert(dtype_of<BFloat16>() == DType::kBFloat16);
  EXPECT_THROW(dtype_size(static_cast<DType>(kNumDTypes)), InvalidArgumentError);
}

TEST(Tensor, NewDTypesHoldTheirValues) {
  const Tensor u = Tensor::from_vector<uint64_t>({2}, {0, ~uint64_t{0}});
  EXPECT_EQ(u.nbytes(), 16u);
  EXPECT_EQ(u.data<uint64_t>()[1], 18446744073709551615u);
  const Tensor s = Tensor::from_vector<int16_t>({1}, {-32768});
  EXPECT_EQ(s.data<int16_t>()[0], -32768);
  const Tensor b = Tensor::from_vector<BFloat16>({1}, {BFloat16(1.5f)});
  EXPECT_EQ(b.data<BFloat16>()[0].bits, 0x3fc0);
  EXPECT_THROW(b.data<uint16_t>(), InvalidArgumentError);  // same size, other dtype
}

TEST(Tensor, StorageIsZeroFilledAnd64ByteAligned) {
  for (DType dtype : {DType::kFloat32, DType::kInt8, DType::kFloat64, DType::kBool}) {
    Tensor t(dtype, {3, 7});
    EXPECT_EQ(t.nbytes(), 21 * dtype_size(dtype));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
    const auto* bytes = static_cast<const uint8_t*>(t.raw_data());
    for (size_t i = 0; i < t.nbytes(); ++i) ASSERT_EQ(bytes[i], 0) << i;
  }
}

TEST(Tensor, ZeroElementTensorHasNoData) {
  Tensor t(DType::kFloat32, {4, 0});
  EXPECT_EQ(t.num_elements(), 0);
  EXPECT_EQ(t.nbytes(), 0u);
  EXPECT_EQ(t.raw_data(), nullptr);
  EXPECT_EQ(Tensor().num_elements(), 0);
}

TEST(Tensor, AbsurdShapesAreClearErrorsNotCrashes) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_THROW(Tensor(DType::kFloat32, {big, big}), InvalidArgumentError);
  // 2^62 elements fit in int64 but not their bytes.
  EXPECT_THROW(Tensor(DType::kFloat32, {int64_t{1} << 62}), InvalidArgumentError);
  try {
    Tensor(DType::kFloat32, {1 << 20, 1 << 20});  // 4 TiB
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("[1048576, 1048576]"), std::string::npos) << message;
    EXPECT_NE(message.find("float32"), std::string::npos) << message;
    EXPECT_NE(message.find("kMaxTensorBytes"), std::string::npos) << message;
  }
}

TEST(Tensor, TypedAccessChecksTheDtype) {
  Tensor t(DType::kInt32, {2});
  t.data<int32_t>()[1] = 7;
  EXPECT_EQ(t.data<int32_t>()[1], 7);
  try {
    t.data<float>();
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
  }
}

TEST(Tensor, FromVectorCopiesValuesAndChecksTheCount) {
  Tensor t = Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.data<float>()[3], 4.0f);
  EXPECT_THROW(Tensor::from_vector<float>({2, 2}, {1, 2, 3}), InvalidArgumentError);
  Tensor h = Tensor::from_vector<Float16>({1}, {Float16(0.5f)});
  EXPECT_EQ(static_cast<float>(h.data<Float16>()[0]), 0.5f);
}

TEST(Tensor, ReshapeSharesStorageAndChecksCount) {
  Tensor t = Tensor::from_vector<int64_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor r = t.reshape({3, 2});
  EXPECT_TRUE(r.shares_storage_with(t));
  EXPECT_EQ(r.shape(), Shape({3, 2}));
  r.data<int64_t>()[0] = 42;
  EXPECT_EQ(t.data<int64_t>()[0], 42);
  EXPECT_THROW(t.reshape({4}), InvalidArgumentError);
}

TEST(Tensor, CloneIsIndependent) {
  Tensor t = Tensor::from_vector<double>({2}, {1.5, 2.5});
  Tensor c = t.clone();
  EXPECT_FALSE(c.shares_storage_with(t));
  c.data<double>()[0] = -1;
  EXPECT_EQ(t.data<double>()[0], 1.5);
  EXPECT_EQ(c.data<double>()[1], 2.5);
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

TEST(ExternalTensorTest, BorrowsTheMemoryAndReleasesTheOwnerWithTheLastHandle) {
  auto values = std::make_shared<std::vector<int32_t>>(std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  std::weak_ptr<std::vector<int32_t>> watch = values;
  Tensor view;
  {
    Tensor t = Tensor::from_external(DType::kInt32, Shape{2, 3}, values->data(), values);
    values.reset();
    EXPECT_EQ(t.data<int32_t>(), watch.lock()->data());  // no copy
    view = t.reshape(Shape{3, 2});
  }
  EXPECT_FALSE(watch.expired());  // the reshaped view still holds the owner
  EXPECT_EQ(view.data<int32_t>()[5], 6);
  view = Tensor();
  EXPECT_TRUE(watch.expired());
}

TEST(ExternalTensorTest, AcceptsElementAlignedButNotCacheLineAlignedData) {
  std::vector<float> buffer(20, 1.5f);
  Tensor t = Tensor::from_external(DType::kFloat32, Shape{3}, buffer.data() + 1, nullptr);
  EXPECT_EQ(t.data<float>(), buffer.data() + 1);
  EXPECT_EQ(t.clone().data<float>()[2], 1.5f);
}

TEST(ExternalTensorTest, RejectsMisalignedNullAndOversizedData) {
  std::vector<int64_t> buffer(4);
  char* odd = reinterpret_cast<char*>(buffer.data()) + 4;
  EXPECT_THROW(Tensor::from_external(DType::kInt64, Shape{2}, odd, nullptr), InvalidArgumentError);
  EXPECT_THROW(Tensor::from_external(DType::kFloat32, Shape{2}, nullptr, nullptr),
               InvalidArgumentError);
  EXPECT_THROW(
      Tensor::from_external(DType::kFloat32, Shape{int64_t{1} << 40, 4}, buffer.data(), nullptr),
      InvalidArgumentError);
  Tensor empty = Tensor::from_external(DType::kFloat32, Shape{0, 3}, nullptr, nullptr);
  EXPECT_EQ(empty.raw_data(), nullptr);
}

}  // namespace
}  // namespace loom
