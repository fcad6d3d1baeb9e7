#include "kernels/onnx_dtype.h"

#include <gtest/gtest.h>

namespace loom::kernels {
namespace {

TEST(OnnxDtype, NumbersFollowTensorProtoDataType) {
  // onnx.proto's TensorProto.DataType, copied by hand.
  EXPECT_EQ(OnnxDataType(DType::kFloat32), 1);
  EXPECT_EQ(OnnxDataType(DType::kUInt8), 2);
  EXPECT_EQ(OnnxDataType(DType::kInt8), 3);
  EXPECT_EQ(OnnxDataType(DType::kUInt16), 4);
  EXPECT_EQ(OnnxDataType(DType::kInt16), 5);
  EXPECT_EQ(OnnxDataType(DType::kInt32), 6);
  EXPECT_EQ(OnnxDataType(DType::kInt64), 7);
  EXPECT_EQ(OnnxDataType(DType::kBool), 9);
  EXPECT_EQ(OnnxDataType(DType::kFloat16), 10);
  EXPECT_EQ(OnnxDataType(DType::kFloat64), 11);
  EXPECT_EQ(OnnxDataType(DType::kUInt32), 12);
  EXPECT_EQ(OnnxDataType(DType::kUInt64), 13);
  EXPECT_EQ(OnnxDataType(DType::kBFloat16), 16);
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = static_cast<DType>(d);
    EXPECT_NE(OnnxDataType(dtype), 0) << dtype_name(dtype);
    EXPECT_EQ(DTypeFromOnnxDataType(OnnxDataType(dtype)), dtype);
  }
  EXPECT_EQ(DTypeFromOnnxDataType(0), std::nullopt);  // UNDEFINED
  EXPECT_EQ(DTypeFromOnnxDataType(8), DType::kString);
  EXPECT_EQ(DTypeFromOnnxDataType(14), std::nullopt);  // COMPLEX64
  EXPECT_EQ(DTypeFromOnnxDataType(17), std::nullopt);  // FLOAT8E4M3FN
  EXPECT_EQ(DTypeFromOnnxDataType(-1), std::nullopt);
}

TEST(OnnxDtype, SupportedListIsInNumberOrder) {
  EXPECT_EQ(SupportedOnnxDataTypes(),
            "1 FLOAT, 2 UINT8, 3 INT8, 4 UINT16, 5 INT16, 6 INT32, 7 INT64, 8 STRING, 9 BOOL, "
            "10 FLOAT16, 11 DOUBLE, 12 UINT32, 13 UINT64, 16 BFLOAT16");
}

}  // namespace
}  // namespace loom::kernels
