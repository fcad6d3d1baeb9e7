#include "onnx_import/tensor_proto.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

const ExternalDataPolicy kNoFolder{};

onnx::TensorProto Proto(int32_t type, std::vector<int64_t> dims) {
  onnx::TensorProto proto;
  proto.set_name("t");
  proto.set_data_type(type);
  for (int64_t d : dims) proto.add_dims(d);
  return proto;
}

std::string ErrorOf(const onnx::TensorProto& proto) {
  try {
    TensorFromProto(proto, kNoFolder, "initializer 't'");
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

TEST(TensorProto, RawDataFloat) {
  onnx::TensorProto proto = Proto(onnx::TensorProto::FLOAT, {2, 2});
  const float values[4] = {1.5f, -2, 0, 8};
  proto.set_raw_data(values, sizeof(values));
  const Tensor t = TensorFromProto(proto, kNoFolder, "t");
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.shape(), Shape({2, 2}));
  EXPECT_EQ(t.data<float>()[0], 1.5f);
  EXPECT_EQ(t.data<float>()[3], 8.0f);
}

TEST(TensorProto, TypedFields) {
  onnx::TensorProto f = Proto(onnx::TensorProto::FLOAT, {3});
  for (float v : {1.f, 2.f, 3.f}) f.add_float_data(v);
  EXPECT_EQ(TensorFromProto(f, kNoFolder, "f").data<float>()[2], 3.0f);

  onnx::TensorProto d = Proto(onnx::TensorProto::DOUBLE, {2});
  d.add_double_data(0.25);
  d.add_double_data(-1e300);
  EXPECT_EQ(TensorFromProto(d, kNoFolder, "d").data<double>()[1], -1e300);

  onnx::TensorProto i64 = Proto(onnx::TensorProto::INT64, {2});
  i64.add_int64_data(int64_t{1} << 50);
  i64.add_int64_data(-5);
  const Tensor t64 = TensorFromProto(i64, kNoFolder, "i64");
  EXPECT_EQ(t64.data<int64_t>()[0], int64_t{1} << 50);
  EXPECT_EQ(t64.data<int64_t>()[1], -5);

  onnx::TensorProto i32 = Proto(onnx::TensorProto::INT32, {1});
  i32.add_int32_data(-70000);
  EXPECT_EQ(TensorFromProto(i32, kNoFolder, "i32").data<int32_t>()[0], -70000);

  onnx::TensorProto i8 = Proto(onnx::TensorProto::INT8, {2});
  i8.add_int32_data(-128);
  i8.add_int32_data(127);
  EXPECT_EQ(TensorFromProto(i8, kNoFolder, "i8").data<int8_t>()[0], -128);

  onnx::TensorProto u8 = Proto(onnx::TensorProto::UINT8, {1});
  u8.add_int32_data(255);
  EXPECT_EQ(TensorFromProto(u8, kNoFolder, "u8").data<uint8_t>()[0], 255);

  onnx::TensorProto b = Proto(onnx::TensorProto::BOOL, {2});
  b.add_int32_data(1);
  b.add_int32_data(0);
  const Tensor tb = TensorFromProto(b, kNoFolder, "b");
  EXPECT_TRUE(tb.data<bool>()[0]);
  EXPECT_FALSE(tb.data<bool>()[1]);
}

TEST(TensorProto, Float16ThroughInt32Data) {
  onnx::TensorProto h = Proto(onnx::TensorProto::FLOAT16, {3});
  // IEEE binary16 bit patterns: 1.0 = 0x3C00, -2.0 = 0xC000, 0.5 = 0x3800.
  for (int32_t bits : {0x3C00, 0xC000, 0x3800}) h.add_int32_data(bits);
  const Tensor t = TensorFromProto(h, kNoFolder, "h");
  ASSERT_EQ(t.dtype(), DType::kFloat16);
  EXPECT_EQ(static_cast<float>(t.data<Float16>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(t.data<Float16>()[1]), -2.0f);
  EXPECT_EQ(static_cast<float>(t.data<Float16>()[2]), 0.5f);
}

// The typed field of each new type, values written by hand (onnx.proto:
// int32_data holds int16, uint16 and the bfloat16 bit patterns; uint64_data
// holds uint32 and uint64).
TEST(TensorProto, SixteenBitAndUnsignedTypesFromTypedFields) {
  onnx::TensorProto i16 = Proto(onnx::TensorProto::INT16, {3});
  for (int32_t v : {-32768, 32767, -1}) i16.add_int32_data(v);
  const Tensor t16 = TensorFromProto(i16, kNoFolder, "i16");
  ASSERT_EQ(t16.dtype(), DType::kInt16);
  EXPECT_EQ(t16.data<int16_t>()[0], -32768);
  EXPECT_EQ(t16.data<int16_t>()[1], 32767);
  EXPECT_EQ(t16.data<int16_t>()[2], -1);

  onnx::TensorProto u16 = Proto(onnx::TensorProto::UINT16, {2});
  u16.add_int32_data(65535);
  u16.add_int32_data(0);
  const Tensor tu16 = TensorFromProto(u16, kNoFolder, "u16");
  ASSERT_EQ(tu16.dtype(), DType::kUInt16);
  EXPECT_EQ(tu16.data<uint16_t>()[0], 65535);

  onnx::TensorProto u32 = Proto(onnx::TensorProto::UINT32, {2});
  u32.add_uint64_data(4294967295u);
  u32.add_uint64_data(7);
  const Tensor tu32 = TensorFromProto(u32, kNoFolder, "u32");
  ASSERT_EQ(tu32.dtype(), DType::kUInt32);
  EXPECT_EQ(tu32.data<uint32_t>()[0], 4294967295u);
  EXPECT_EQ(tu32.data<uint32_t>()[1], 7u);

  onnx::TensorProto u64 = Proto(onnx::TensorProto::UINT64, {2});
  u64.add_uint64_data(18446744073709551615u);
  u64.add_uint64_data(uint64_t{1} << 63);
  const Tensor tu64 = TensorFromProto(u64, kNoFolder, "u64");
  ASSERT_EQ(tu64.dtype(), DType::kUInt64);
  EXPECT_EQ(tu64.data<uint64_t>()[0], 18446744073709551615u);
  EXPECT_EQ(tu64.data<uint64_t>()[1], uint64_t{1} << 63);

  onnx::TensorProto bf = Proto(onnx::TensorProto::BFLOAT16, {3});
  // bfloat16 bit patterns: 1.0 = 0x3F80, -123.5 = 0xC2F7, +inf = 0x7F80.
  for (int32_t bits : {0x3F80, 0xC2F7, 0x7F80}) bf.add_int32_data(bits);
  const Tensor tbf = TensorFromProto(bf, kNoFolder, "bf");
  ASSERT_EQ(tbf.dtype(), DType::kBFloat16);
  EXPECT_EQ(static_cast<float>(tbf.data<BFloat16>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(tbf.data<BFloat16>()[1]), -123.5f);
  EXPECT_EQ(tbf.data<BFloat16>()[2].bits, 0x7F80);
}

TEST(TensorProto, SixteenBitAndUnsignedTypesFromRawData) {
  // Little-endian bytes, written out by hand.
  onnx::TensorProto i16 = Proto(onnx::TensorProto::INT16, {2});
  i16.set_raw_data(std::string("\x00\x80\xfe\xff", 4));  // -32768, -2
  const Tensor t16 = TensorFromProto(i16, kNoFolder, "i16");
  EXPECT_EQ(t16.data<int16_t>()[0], -32768);
  EXPECT_EQ(t16.data<int16_t>()[1], -2);

  onnx::TensorProto u16 = Proto(onnx::TensorProto::UINT16, {1});
  u16.set_raw_data(std::string("\x34\x12", 2));
  EXPECT_EQ(TensorFromProto(u16, kNoFolder, "u16").data<uint16_t>()[0], 0x1234);

  onnx::TensorProto u32 = Proto(onnx::TensorProto::UINT32, {1});
  u32.set_raw_data(std::string("\xff\xff\xff\xff", 4));
  EXPECT_EQ(TensorFromProto(u32, kNoFolder, "u32").data<uint32_t>()[0], 4294967295u);

  onnx::TensorProto u64 = Proto(onnx::TensorProto::UINT64, {2});
  // Appended, not `std::string + std::string`: GCC 12 at -O1 warns a false
  // -Warray-bounds on that concatenation (GCC bug 105651).
  std::string u64_bytes(8, '\xff');
  u64_bytes.append("\x01\0\0\0\0\0\0\x80", 8);
  u64.set_raw_data(u64_bytes);
  const Tensor tu64 = TensorFromProto(u64, kNoFolder, "u64");
  EXPECT_EQ(tu64.data<uint64_t>()[0], 18446744073709551615u);
  EXPECT_EQ(tu64.data<uint64_t>()[1], (uint64_t{1} << 63) + 1);

  onnx::TensorProto bf = Proto(onnx::TensorProto::BFLOAT16, {2});
  bf.set_raw_data(std::string("\x49\x40\xc0\xff", 4));  // 0x4049 = 3.140625, 0xffc0 = NaN
  const Tensor tbf = TensorFromProto(bf, kNoFolder, "bf");
  EXPECT_EQ(static_cast<float>(tbf.data<BFloat16>()[0]), 3.140625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(tbf.data<BFloat16>()[1])));

  onnx::TensorProto short_u64 = Proto(onnx::TensorProto::UINT64, {2});
  short_u64.set_raw_data(std::string(12, '\0'));
  EXPECT_NE(ErrorOf(short_u64).find("of uint64 need 16"), std::string::npos) << ErrorOf(short_u64);
}

TEST(TensorProto, NewTypesRoundTripThroughToProto) {
  const std::vector<Tensor> tensors = {
      Tensor::from_vector<int16_t>({2}, {-32768, 5}),
      Tensor::from_vector<uint16_t>({1}, {65535}),
      Tensor::from_vector<uint32_t>({1}, {4000000000u}),
      Tensor::from_vector<uint64_t>({1}, {18446744073709551615u}),
      Tensor::from_vector<BFloat16>({1}, {BFloat16::from_bits(0xc2f7)}),
  };
  for (const Tensor& t : tensors) {
    const onnx::TensorProto proto = TensorToProto(t, "n");
    const Tensor back = TensorFromProto(proto, kNoFolder, "n");
    EXPECT_EQ(back.dtype(), t.dtype());
    ASSERT_EQ(back.nbytes(), t.nbytes());
    EXPECT_EQ(std::memcmp(back.raw_data(), t.raw_data(), t.nbytes()), 0) << dtype_name(t.dtype());
  }
  EXPECT_EQ(TensorToProto(tensors[0], "n").data_type(), onnx::TensorProto::INT16);
  EXPECT_EQ(TensorToProto(tensors[1], "n").data_type(), onnx::TensorProto::UINT16);
  EXPECT_EQ(TensorToProto(tensors[2], "n").data_type(), onnx::TensorProto::UINT32);
  EXPECT_EQ(TensorToProto(tensors[3], "n").data_type(), onnx::TensorProto::UINT64);
  EXPECT_EQ(TensorToProto(tensors[4], "n").data_type(), onnx::TensorProto::BFLOAT16);
}

TEST(TensorProto, ScalarsAndEmptyTensors) {
  onnx::TensorProto scalar = Proto(onnx::TensorProto::INT64, {});
  scalar.add_int64_data(42);
  const Tensor s = TensorFromProto(scalar, kNoFolder, "s");
  EXPECT_EQ(s.shape().rank(), 0);
  EXPECT_EQ(s.data<int64_t>()[0], 42);
  const Tensor empty = TensorFromProto(Proto(onnx::TensorProto::FLOAT, {0, 3}), kNoFolder, "e");
  EXPECT_EQ(empty.shape(), Shape({0, 3}));
}

TEST(TensorProto, RawBoolBytesAreNormalized) {
  onnx::TensorProto b = Proto(onnx::TensorProto::BOOL, {2});
  b.set_raw_data(std::string("\0\x05", 2));
  const Tensor t = TensorFromProto(b, kNoFolder, "b");
  EXPECT_EQ(static_cast<const uint8_t*>(t.raw_data())[1], 1);
}

TEST(TensorProto, StringsRoundTripThroughStringData) {
  onnx::TensorProto proto = Proto(onnx::TensorProto::STRING, {2, 2});
  for (const char* s : {"a", "", "\xc3\xa9t\xc3\xa9", "long string of text"})
    proto.add_string_data(s);
  const Tensor t = TensorFromProto(proto, kNoFolder, "t");
  ASSERT_EQ(t.dtype(), DType::kString);
  EXPECT_EQ(t.shape(), Shape({2, 2}));
  EXPECT_EQ(t.data<std::string>()[2], "\xc3\xa9t\xc3\xa9");
  const onnx::TensorProto back = TensorToProto(t, "t");
  EXPECT_EQ(back.data_type(), onnx::TensorProto::STRING);
  ASSERT_EQ(back.string_data_size(), 4);
  EXPECT_EQ(back.string_data(3), "long string of text");
  EXPECT_FALSE(back.has_raw_data());

  onnx::TensorProto short_of_values = Proto(onnx::TensorProto::STRING, {3});
  short_of_values.add_string_data("only one");
  EXPECT_NE(ErrorOf(short_of_values).find("holds 1 values"), std::string::npos)
      << ErrorOf(short_of_values);
}

TEST(TensorProto, ErrorsNameTheTensorAndTheProblem) {
  onnx::TensorProto str = Proto(onnx::TensorProto::STRING, {1});
  str.set_raw_data("hi");  // strings live in string_data only
  EXPECT_NE(ErrorOf(str).find("string_data"), std::string::npos) << ErrorOf(str);

  EXPECT_NE(ErrorOf(Proto(onnx::TensorProto::COMPLEX64, {1})).find("COMPLEX64"), std::string::npos);
  EXPECT_NE(ErrorOf(Proto(onnx::TensorProto::COMPLEX64, {1})).find("16 BFLOAT16"),
            std::string::npos);  // the list of supported types
  EXPECT_NE(ErrorOf(Proto(12345, {1})).find("12345"), std::string::npos);

  onnx::TensorProto short_raw = Proto(onnx::TensorProto::FLOAT, {4});
  short_raw.set_raw_data(std::string(15, '\0'));
  EXPECT_NE(ErrorOf(short_raw).find("raw_data has 15 bytes"), std::string::npos)
      << ErrorOf(short_raw);

  onnx::TensorProto few = Proto(onnx::TensorProto::FLOAT, {3});
  few.add_float_data(1);
  EXPECT_NE(ErrorOf(few).find("holds 1 values"), std::string::npos) << ErrorOf(few);

  EXPECT_NE(ErrorOf(Proto(onnx::TensorProto::FLOAT, {2})).find("has no data"), std::string::npos);

  onnx::TensorProto both = Proto(onnx::TensorProto::FLOAT, {1});
  both.add_float_data(1);
  both.set_raw_data(std::string(4, '\0'));
  EXPECT_NE(ErrorOf(both).find("more than one place"), std::string::npos);

  EXPECT_NE(ErrorOf(Proto(onnx::TensorProto::FLOAT, {2, -1})).find("negative"), std::string::npos)
      << ErrorOf(Proto(onnx::TensorProto::FLOAT, {2, -1}));

  // A huge shape with no data: refused before any allocation.
  onnx::TensorProto huge = Proto(onnx::TensorProto::FLOAT, {1 << 30, 1 << 30, 1 << 20});
  huge.set_raw_data("abcd");
  EXPECT_NE(ErrorOf(huge), "");
  onnx::TensorProto overflow =
      Proto(onnx::TensorProto::FLOAT, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_NE(ErrorOf(overflow), "");

  onnx::TensorProto range = Proto(onnx::TensorProto::INT8, {1});
  range.add_int32_data(200);
  EXPECT_NE(ErrorOf(range).find("outside the element type's range"), std::string::npos);
  onnx::TensorProto half = Proto(onnx::TensorProto::FLOAT16, {1});
  half.add_int32_data(70000);
  EXPECT_NE(ErrorOf(half), "");
  onnx::TensorProto bf = Proto(onnx::TensorProto::BFLOAT16, {1});
  bf.add_int32_data(-1);
  EXPECT_NE(ErrorOf(bf).find("outside the element type's range [0, 65535]"), std::string::npos);
  onnx::TensorProto i16 = Proto(onnx::TensorProto::INT16, {1});
  i16.add_int32_data(32768);
  EXPECT_NE(ErrorOf(i16).find("[-32768, 32767]"), std::string::npos) << ErrorOf(i16);
  onnx::TensorProto u16 = Proto(onnx::TensorProto::UINT16, {1});
  u16.add_int32_data(-1);
  EXPECT_NE(ErrorOf(u16).find("[0, 65535]"), std::string::npos) << ErrorOf(u16);
  onnx::TensorProto u32 = Proto(onnx::TensorProto::UINT32, {1});
  u32.add_uint64_data(uint64_t{1} << 32);
  EXPECT_NE(ErrorOf(u32).find("uint64_data[0] = 4294967296"), std::string::npos) << ErrorOf(u32);
  onnx::TensorProto wrong_field = Proto(onnx::TensorProto::UINT64, {1});
  wrong_field.add_int64_data(1);  // uint64 values belong in uint64_data
  EXPECT_NE(ErrorOf(wrong_field).find("holds 0 values"), std::string::npos) << ErrorOf(wrong_field);

  onnx::TensorProto segment = Proto(onnx::TensorProto::FLOAT, {1});
  segment.mutable_segment()->set_begin(0);
  EXPECT_NE(ErrorOf(segment).find("segment"), std::string::npos);

  EXPECT_EQ(ErrorOf(str).rfind("initializer 't': ", 0), 0u);
}

TEST(TensorProto, ExternalDataWithoutFolderIsRefused) {
  onnx::TensorProto ext = Proto(onnx::TensorProto::FLOAT, {1});
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* location = ext.add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");
  EXPECT_NE(ErrorOf(ext).find("no folder"), std::string::npos) << ErrorOf(ext);
}

TEST(TensorProto, ToProtoRoundTrips) {
  const Tensor t = Tensor::from_vector<int32_t>({2, 1}, {5, -6});
  const onnx::TensorProto proto = TensorToProto(t, "n");
  EXPECT_EQ(proto.name(), "n");
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::INT32);
  ASSERT_EQ(proto.dims_size(), 2);
  EXPECT_EQ(proto.raw_data().size(), 8u);
  const Tensor back = TensorFromProto(proto, kNoFolder, "n");
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(back.data<int32_t>()[1], -6);
}

}  // namespace
}  // namespace loom::onnx_import
