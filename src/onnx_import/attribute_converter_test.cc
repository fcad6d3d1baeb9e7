#include "onnx_import/attribute_converter.h"

#include <gtest/gtest.h>

#include "loom/errors.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import {
namespace {

using testing::SetFloat;
using testing::SetFloats;
using testing::SetInt;
using testing::SetInts;
using testing::SetString;
using testing::SetStrings;
using testing::SetTensor;

TEST(AttributeConverter, EveryConvertedKind) {
  onnx::NodeProto node;
  SetInt(&node, "i", -3);
  SetFloat(&node, "f", 0.25f);
  SetString(&node, "s", "edge");
  SetInts(&node, "is", {1, 2, 3});
  SetFloats(&node, "fs", {0.5f, -1});
  SetStrings(&node, "ss", {"a", "bc"});
  SetTensor(&node, "t", Tensor::from_vector<int64_t>({2}, {7, 8}));
  const Attributes a = ConvertAttributes(node, {}, "node 'n' (Op)");
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(std::get<int64_t>(a.at("i")), -3);
  EXPECT_EQ(std::get<float>(a.at("f")), 0.25f);
  EXPECT_EQ(std::get<std::string>(a.at("s")), "edge");
  EXPECT_EQ(std::get<std::vector<int64_t>>(a.at("is")), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(std::get<std::vector<float>>(a.at("fs")), (std::vector<float>{0.5f, -1}));
  EXPECT_EQ(std::get<std::vector<std::string>>(a.at("ss")), (std::vector<std::string>{"a", "bc"}));
  const Tensor& t = std::get<Tensor>(a.at("t"));
  EXPECT_EQ(t.shape(), Shape({2}));
  EXPECT_EQ(t.data<int64_t>()[1], 8);
}

std::string ErrorOf(const onnx::NodeProto& node) {
  try {
    ConvertAttributes(node, {}, "node 'n' (If)");
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

TEST(AttributeConverter, RefusedKindsNameTheAttribute) {
  onnx::NodeProto graph_node;
  onnx::AttributeProto* g = graph_node.add_attribute();
  g->set_name("then_branch");
  g->set_type(onnx::AttributeProto::GRAPH);
  g->mutable_g()->set_name("branch");
  const std::string error = ErrorOf(graph_node);
  EXPECT_EQ(error.rfind("node 'n' (If): attribute 'then_branch'", 0), 0u) << error;
  EXPECT_NE(error.find("subgraph"), std::string::npos) << error;

  onnx::NodeProto sparse;
  onnx::AttributeProto* s = sparse.add_attribute();
  s->set_name("sp");
  s->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  EXPECT_NE(ErrorOf(sparse).find("SPARSE_TENSOR"), std::string::npos) << ErrorOf(sparse);

  onnx::NodeProto tensors;
  onnx::AttributeProto* ts = tensors.add_attribute();
  ts->set_name("ts");
  ts->set_type(onnx::AttributeProto::TENSORS);
  EXPECT_NE(ErrorOf(tensors).find("TENSORS"), std::string::npos);

  onnx::NodeProto ref;
  onnx::AttributeProto* r = ref.add_attribute();
  r->set_name("alpha");
  r->set_type(onnx::AttributeProto::FLOAT);
  r->set_ref_attr_name("outer_alpha");
  EXPECT_NE(ErrorOf(ref).find("function attribute"), std::string::npos);

  onnx::NodeProto undefined;
  undefined.add_attribute()->set_name("u");
  EXPECT_NE(ErrorOf(undefined).find("UNDEFINED"), std::string::npos) << ErrorOf(undefined);

  onnx::NodeProto twice;
  SetInt(&twice, "axis", 1);
  SetInt(&twice, "axis", 2);
  EXPECT_NE(ErrorOf(twice).find("given twice"), std::string::npos);

  onnx::NodeProto bad_tensor;
  onnx::AttributeProto* bt = bad_tensor.add_attribute();
  bt->set_name("value");
  bt->set_type(onnx::AttributeProto::TENSOR);
  bt->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  bt->mutable_t()->add_dims(3);
  EXPECT_NE(ErrorOf(bad_tensor).find("attribute 'value': has no data"), std::string::npos)
      << ErrorOf(bad_tensor);
}

}  // namespace
}  // namespace loom::onnx_import
