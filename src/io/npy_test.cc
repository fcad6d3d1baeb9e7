#include "io/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "loom/errors.h"

namespace loom::io {
namespace {

// A version 1.0 file: magic, version, little-endian uint16 header length,
// header text, data — assembled by hand, independent of SerializeNpy.
std::string V1(const std::string& header, const std::string& data) {
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + data;
}

std::string Bytes(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

TEST(Npy, ParsesFloat32Matrix) {
  const float values[6] = {1, 2, 3, 4, 5, -6.5f};
  const Tensor t = ParseNpy(
      V1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", Bytes(values, 24)),
      "m.npy");
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.shape(), Shape({2, 3}));
  EXPECT_EQ(t.data<float>()[5], -6.5f);
  EXPECT_EQ(t.data<float>()[0], 1.0f);
}

TEST(Npy, ParsesEveryDTypeCode) {
  struct Case {
    const char* descr;
    DType dtype;
  };
  const Case cases[] = {
      {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}, {"<f2", DType::kFloat16},
      {"|i1", DType::kInt8},    {"|u1", DType::kUInt8},   {"<i4", DType::kInt32},
      {"<i8", DType::kInt64},   {"|b1", DType::kBool},    {"=f4", DType::kFloat32},
      {"=i8", DType::kInt64},   {"<u1", DType::kUInt8},   {"<i2", DType::kInt16},
      {"<u2", DType::kUInt16},  {"<u4", DType::kUInt32},  {"<u8", DType::kUInt64},
      {"=u8", DType::kUInt64}};
  for (const Case& c : cases) {
    const size_t size = dtype_size(c.dtype);
    const std::string header =
        std::string("{'descr': '") + c.descr + "', 'fortran_order': False, 'shape': (3,), }";
    const Tensor t = ParseNpy(V1(header, std::string(3 * size, '\0')), "x.npy");
    EXPECT_EQ(t.dtype(), c.dtype) << c.descr;
    EXPECT_EQ(t.shape(), Shape({3})) << c.descr;
  }
}

TEST(Npy, Int64AndScalarAndEmpty) {
  const int64_t v = -1234567890123LL;
  const Tensor scalar =
      ParseNpy(V1("{'descr': '<i8', 'fortran_order': False, 'shape': (), }", Bytes(&v, 8)), "s");
  EXPECT_EQ(scalar.shape().rank(), 0);
  EXPECT_EQ(scalar.data<int64_t>()[0], v);
  const Tensor empty =
      ParseNpy(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", ""), "e");
  EXPECT_EQ(empty.shape(), Shape({0, 5}));
}

TEST(Npy, AcceptsDoubleQuotesKeyOrderAndVersion2) {
  const float one = 1.0f;
  const std::string header = "{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<f4\"}";
  std::string v2 = "\x93NUMPY";
  v2.push_back(2);
  v2.push_back(0);
  const uint32_t length = static_cast<uint32_t>(header.size());
  v2 += Bytes(&length, 4) + header + Bytes(&one, 4);
  const Tensor t = ParseNpy(v2, "v2.npy");
  EXPECT_EQ(t.data<float>()[0], 1.0f);
}

TEST(Npy, UnsignedAndInt16ValuesReadLittleEndian) {
  // Bytes written by hand: 0xfffe, 0x0102 as <u2; -32768 as <i2; 2^64 - 1 as <u8.
  const Tensor u2 = ParseNpy(V1("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                                std::string("\xfe\xff\x02\x01", 4)),
                             "u2");
  EXPECT_EQ(u2.data<uint16_t>()[0], 65534);
  EXPECT_EQ(u2.data<uint16_t>()[1], 258);
  const Tensor i2 = ParseNpy(
      V1("{'descr': '<i2', 'fortran_order': False, 'shape': (), }", std::string("\x00\x80", 2)),
      "i2");
  EXPECT_EQ(i2.data<int16_t>()[0], -32768);
  const Tensor u8 = ParseNpy(
      V1("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\xff')),
      "u8");
  EXPECT_EQ(u8.data<uint64_t>()[0], 18446744073709551615u);
  const Tensor u4 = ParseNpy(V1("{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }",
                                std::string("\x01\x00\x00\x80", 4)),
                             "u4");
  EXPECT_EQ(u4.data<uint32_t>()[0], 2147483649u);
}

TEST(Npy, BFloat16CannotBeWritten) {
  const Tensor b = Tensor::from_vector<BFloat16>({1}, {BFloat16(1.0f)});
  try {
    SerializeNpy(b);
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("bfloat16"), std::string::npos) << message;
    EXPECT_NE(message.find("numpy has no such dtype"), std::string::npos) << message;
  }
}

TEST(Npy, FortranOrderAllowedOnlyWhereItEqualsCOrder) {
  const float v[2] = {1, 2};
  EXPECT_NO_THROW(
      ParseNpy(V1("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", Bytes(v, 8)), "f1"));
  EXPECT_THROW(
      ParseNpy(V1("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", Bytes(v, 8)), "f2"),
      InvalidArgumentError);
}

TEST(Npy, BoolBytesBecomeZeroOrOne) {
  const Tensor t = ParseNpy(
      V1("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\0\1\7", 3)),
      "b");
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
}

void ExpectError(const std::string& bytes, const std::string& fragment) {
  try {
    ParseNpy(bytes, "bad.npy");
    FAIL() << "no error; expected one containing: " << fragment;
  } catch (const InvalidArgumentError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("bad.npy: ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(Npy, MalformedFilesAreClearErrors) {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string data(8, '\0');
  ExpectError("", "magic");
  ExpectError("\x93NUMPX\1\0", "magic");
  ExpectError(std::string("\x93NUMPY\4\0", 8), "version");
  ExpectError(std::string("\x93NUMPY\1\0", 8), "header length");
  ExpectError(std::string("\x93NUMPY\1\0\xff\x00", 10) + "{}", "ends inside the header");
  ExpectError(V1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data), "big-endian");
  ExpectError(V1("{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", data), "byte order");
  ExpectError(V1("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", data), "<c8");
  ExpectError(V1("{'descr': '<u16', 'fortran_order': False, 'shape': (2,), }", data), "<u16");
  ExpectError(V1("{'descr': '>u2', 'fortran_order': False, 'shape': (2,), }", data), "big-endian");
  ExpectError(V1("{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }", data), "f4");
  ExpectError(V1("{'descr': '<f4', 'shape': (2,), }", data), "exactly the keys");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data),
              "unexpected value");
  ExpectError(V1("{'descr': '<f4', 'descr': '<f4', 'shape': (2,)}", data), "repeats");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", data),
              "unexpected value");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': 2, }", data),
              "unexpected value");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data),
              "non-negative integer");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,3 }", data), "malformed");
  ExpectError(V1("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", data), "expected");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", data),
              "after the dict");
  ExpectError(V1("['descr']", data), "expected '{'");
  ExpectError(V1(ok, std::string(7, '\0')), "needs 8 data bytes, the file has 7");
  ExpectError(V1(ok, std::string(9, '\0')), "needs 8 data bytes, the file has 9");
  ExpectError(
      V1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data),
      "overflows");
  // Element count fits int64 but the bytes do not exist: no allocation.
  ExpectError(
      V1("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", data),
      "needs more data bytes");
  ExpectError(V1("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, "
                 "1000000, 1000000), }",
                 data),
              "shape");
}

TEST(Npy, EveryPrefixOfAValidFileFailsCleanly) {
  const float values[3] = {1, 2, 3};
  const std::string file =
      V1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", Bytes(values, 12));
  for (size_t n = 0; n < file.size(); ++n) {
    EXPECT_THROW(ParseNpy(file.substr(0, n), "p.npy"), InvalidArgumentError) << n;
  }
  EXPECT_NO_THROW(ParseNpy(file, "p.npy"));
}

TEST(Npy, SerializeMatchesNumpyLayout) {
  const Tensor t = Tensor::from_vector<int32_t>({2, 2}, {1, 2, 3, 4});
  const std::string bytes = SerializeNpy(t);
  // numpy: magic, 1.0, header padded so that data starts at a multiple of 64.
  ASSERT_GE(bytes.size(), 64u + 16u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\1\0", 8));
  const size_t header_length =
      static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_length) % 64, 0u);
  const std::string header = bytes.substr(10, header_length);
  EXPECT_EQ(header.rfind("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", 0), 0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
  int32_t last = 0;
  std::memcpy(&last, bytes.data() + bytes.size() - 4, 4);
  EXPECT_EQ(last, 4);
}

TEST(Npy, OneDimensionalShapeKeepsTupleComma) {
  const std::string bytes = SerializeNpy(Tensor::from_vector<float>({3}, {1, 2, 3}));
  EXPECT_NE(bytes.find("'shape': (3,)"), std::string::npos);
  const std::string scalar = SerializeNpy(Tensor::from_vector<double>(Shape(), {2.0}));
  EXPECT_NE(scalar.find("'shape': ()"), std::string::npos);
}

TEST(Npy, RoundTripsEveryDType) {
  const std::vector<Tensor> tensors = {
      Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
      Tensor::from_vector<double>({2}, {1.5, -2.5}),
      Tensor::from_vector<Float16>({1}, {Float16(0.5f)}),
      Tensor::from_vector<int8_t>({3}, {-1, 0, 1}),
      Tensor::from_vector<uint8_t>({2}, {0, 255}),
      Tensor::from_vector<int32_t>({1, 1, 2}, {7, -7}),
      Tensor::from_vector<int64_t>({2}, {int64_t{1} << 40, -3}),
      Tensor::from_vector<bool>({2}, {true, false}),
      Tensor::from_vector<int16_t>({2}, {-32768, 32767}),
      Tensor::from_vector<uint16_t>({2}, {0, 65535}),
      Tensor::from_vector<uint32_t>({1}, {4294967295u}),
      Tensor::from_vector<uint64_t>({2}, {0, 18446744073709551615u}),
      Tensor(DType::kFloat32, Shape({0, 3})),
  };
  for (const Tensor& t : tensors) {
    const Tensor back = ParseNpy(SerializeNpy(t), "rt");
    EXPECT_EQ(back.dtype(), t.dtype());
    EXPECT_EQ(back.shape(), t.shape());
    ASSERT_EQ(back.nbytes(), t.nbytes());
    if (t.nbytes() > 0) {
      EXPECT_EQ(std::memcmp(back.raw_data(), t.raw_data(), t.nbytes()), 0);
    }
  }
}

TEST(Npy, FilesRoundTripAndMissingFileNamesPath) {
  const std::string dir = ::testing::TempDir() + "/loom_npy_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/t.npy";
  WriteNpy(path, Tensor::from_vector<float>({2}, {3, 4}));
  EXPECT_EQ(ReadNpy(path).data<float>()[1], 4.0f);
  try {
    ReadNpy(dir + "/missing.npy");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.npy"), std::string::npos);
  }
  EXPECT_THROW(WriteNpy(dir + "/no/such/dir/t.npy", Tensor::from_vector<float>({1}, {1})),
               RuntimeError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace loom::io
