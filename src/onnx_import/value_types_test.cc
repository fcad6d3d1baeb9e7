#include "onnx_import/value_types.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "loom/errors.h"

namespace loom::onnx_import {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

TEST(ValueTypes, DimsBecomeSizesSymbolsOrFreshSymbols) {
  onnx::GraphProto graph;
  SymbolTable symbols(graph);
  onnx::ValueInfoProto info;
  info.set_name("x");
  onnx::TypeProto_Tensor* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::INT64);
  tensor->mutable_shape()->add_dim()->set_dim_value(3);
  tensor->mutable_shape()->add_dim()->set_dim_param("batch");
  tensor->mutable_shape()->add_dim();
  tensor->mutable_shape()->add_dim();
  const TensorType type = ConvertValueType(info, true, symbols, "graph input 'x'");
  EXPECT_EQ(type.dtype, DType::kInt64);
  ASSERT_TRUE(type.shape.has_value());
  ASSERT_EQ(type.shape->size(), 4u);
  EXPECT_EQ((*type.shape)[0], Dim(3));
  EXPECT_EQ((*type.shape)[1], Dim("batch"));
  EXPECT_FALSE((*type.shape)[2].is_known());
  EXPECT_FALSE((*type.shape)[3].is_known());
  EXPECT_NE((*type.shape)[2], (*type.shape)[3]);  // two unknowns never bind together
  // The model's own symbol is not Loom's invention; the unnamed ones are.
  EXPECT_FALSE((*type.shape)[0].is_invented());
  EXPECT_FALSE((*type.shape)[1].is_invented());
  EXPECT_TRUE((*type.shape)[2].is_invented());
  EXPECT_TRUE((*type.shape)[3].is_invented());
}

TEST(ValueTypes, NoShapeMeansUnknownRank) {
  onnx::GraphProto graph;
  SymbolTable symbols(graph);
  onnx::ValueInfoProto info;
  info.mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  EXPECT_FALSE(ConvertValueType(info, true, symbols, "x").shape.has_value());
}

TEST(ValueTypes, UntypedOutputIsUnknownButAnInputMustHaveAType) {
  onnx::GraphProto graph;
  SymbolTable symbols(graph);
  onnx::ValueInfoProto info;
  info.set_name("y");
  EXPECT_FALSE(ConvertValueType(info, false, symbols, "graph output 'y'").shape.has_value());
  EXPECT_THROW(ConvertValueType(info, true, symbols, "graph input 'y'"), InvalidArgumentError);
  info.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(-3);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
  EXPECT_THROW(ConvertValueType(info, true, symbols, "graph input 'y'"), InvalidArgumentError);
}

TEST(ValueTypes, ElementTypesMapToDTypes) {
  onnx::GraphProto graph;
  SymbolTable symbols(graph);
  const std::pair<int32_t, DType> cases[] = {{onnx::TensorProto::UINT16, DType::kUInt16},
                                             {onnx::TensorProto::INT16, DType::kInt16},
                                             {onnx::TensorProto::UINT32, DType::kUInt32},
                                             {onnx::TensorProto::UINT64, DType::kUInt64},
                                             {onnx::TensorProto::BFLOAT16, DType::kBFloat16}};
  for (const auto& [elem_type, dtype] : cases) {
    onnx::ValueInfoProto info;
    info.mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    EXPECT_EQ(ConvertValueType(info, true, symbols, "x").dtype, dtype) << elem_type;
    EXPECT_EQ(ConvertValueType(info, false, symbols, "y").dtype, dtype) << elem_type;
  }
  onnx::ValueInfoProto complex;
  complex.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::COMPLEX64);
  try {
    ConvertValueType(complex, true, symbols, "graph input 'c'");
    FAIL() << "no error";
  } catch (const InvalidArgumentError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("COMPLEX64"), std::string::npos) << message;
    EXPECT_NE(message.find("4 UINT16"), std::string::npos) << message;
  }
}

TEST(ValueTypes, FreshSymbolsAvoidExistingDimParams) {
  onnx::GraphProto graph;
  onnx::ValueInfoProto* input = graph.add_input();
  input->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("unk__0");
  SymbolTable symbols(graph);
  EXPECT_EQ(symbols.Fresh(), "unk__1");
  EXPECT_EQ(symbols.Fresh(), "unk__2");
}

}  // namespace
}  // namespace loom::onnx_import
