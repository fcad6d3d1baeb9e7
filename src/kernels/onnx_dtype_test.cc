#include "kernels/onnx_dtype.h"

#include <gtest/gtest.h>

namespace loom::kernels {
namespace {

TEST(OnnxDtype, NumbersFollowTensorProtoDataType) {
  EXPECT_EQ(OnnxDataType(DType::kFloat32), 1);
  EXPECT_EQ(OnnxDataType(DType::kUInt8), 2);
  EXPECT_EQ(OnnxDataType(DType::kInt8), 3);
  EXPECT_EQ(OnnxDataType(DType::kInt32), 6);
  EXPECT_EQ(OnnxDataType(DType::kInt64), 7);
  EXPECT_EQ(OnnxDataType(DType::kBool), 9);
  EXPECT_EQ(OnnxDataType(DType::kFloat16), 10);
  EXPECT_EQ(OnnxDataType(DType::kFloat64), 11);
  for (int d = 0; d <= static_cast<int>(DType::kBool); ++d) {
    const DType dtype = static_cast<DType>(d);
    EXPECT_EQ(DTypeFromOnnxDataType(OnnxDataType(dtype)), dtype);
  }
  EXPECT_EQ(DTypeFromOnnxDataType(8), std::nullopt);   // STRING
  EXPECT_EQ(DTypeFromOnnxDataType(16), std::nullopt);  // BFLOAT16
  EXPECT_EQ(DTypeFromOnnxDataType(-1), std::nullopt);
}

}  // namespace
}  // namespace loom::kernels
