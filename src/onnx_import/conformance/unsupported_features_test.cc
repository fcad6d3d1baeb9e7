#include "onnx_import/conformance/unsupported_features.h"

#include <gtest/gtest.h>

#include "onnx_import/conformance/testing/test_models.h"

namespace loom::conformance {
namespace {

using testing::SingleNodeModel;
using Items = std::vector<std::string>;

TEST(FindUnsupportedFeatures, SupportedModelHasNone) {
  auto model = SingleNodeModel("Add", {{"x", onnx::TensorProto::FLOAT, {2}}, {"y"}}, {{"z"}});
  EXPECT_EQ(FindUnsupportedFeatures(model), Items{});
}

TEST(FindUnsupportedFeatures, OpsWithoutKernelAndOtherDomains) {
  auto model = SingleNodeModel("ImageDecoder", {{"x"}}, {{"y"}});
  EXPECT_EQ(FindUnsupportedFeatures(model), Items{"op ImageDecoder"});
  auto ml = SingleNodeModel("LabelEncoder", {{"x"}}, {{"y"}}, 13, "ai.onnx.ml");
  EXPECT_EQ(FindUnsupportedFeatures(ml), Items{"op ai.onnx.ml.LabelEncoder"});
  // A default-domain op name in another domain is still another op.
  auto custom = SingleNodeModel("Add", {{"x"}, {"y"}}, {{"z"}}, 13, "com.example");
  EXPECT_EQ(FindUnsupportedFeatures(custom), Items{"op com.example.Add"});
}

TEST(FindUnsupportedFeatures, OpsetOutsideTheImportersRange) {
  // Opsets 1 to 24 import; within them, each op's version needs a rule
  // (Relu-1 had consumed_inputs; Relu-6 is read as the newest).
  EXPECT_EQ(FindUnsupportedFeatures(SingleNodeModel("Relu", {{"x"}}, {{"y"}}, 25)),
            Items{"opset 25 (Loom imports 1..24)"});
  EXPECT_EQ(FindUnsupportedFeatures(SingleNodeModel("Relu", {{"x"}}, {{"y"}}, 1)),
            Items{"op Relu version 1"});
  for (int opset : {6, 9, 18, 24}) {
    EXPECT_EQ(FindUnsupportedFeatures(SingleNodeModel("Relu", {{"x"}}, {{"y"}}, opset)), Items{});
  }
}

TEST(FindUnsupportedFeatures, ElementTypesLoomLacks) {
  auto model = SingleNodeModel("Identity", {{"x", onnx::TensorProto::COMPLEX128, {2}}},
                               {{"y", onnx::TensorProto::FLOAT8E4M3FN, {2}}});
  onnx::TensorProto* init = model.mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(onnx::TensorProto::COMPLEX64);
  EXPECT_EQ(FindUnsupportedFeatures(model),
            (Items{"dtype complex128", "dtype complex64", "dtype float8e4m3fn"}));
  // The 16-bit, unsigned wide and bfloat16 types are Loom dtypes.
  for (int32_t elem_type :
       {onnx::TensorProto::UINT16, onnx::TensorProto::INT16, onnx::TensorProto::UINT32,
        onnx::TensorProto::UINT64, onnx::TensorProto::BFLOAT16}) {
    EXPECT_EQ(FindUnsupportedFeatures(
                  SingleNodeModel("Identity", {{"x", elem_type, {2}}}, {{"y", elem_type, {2}}})),
              Items{})
        << elem_type;
  }
}

TEST(FindUnsupportedFeatures, ConstantAttributeTensorsAreInspected) {
  auto model = SingleNodeModel("Constant", {}, {{"y"}});
  onnx::AttributeProto* value = model.mutable_graph()->mutable_node(0)->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::COMPLEX64);
  EXPECT_EQ(FindUnsupportedFeatures(model), Items{"dtype complex64"});
}

TEST(FindUnsupportedFeatures, NonTensorTypesAndSparseInitializers) {
  auto model = SingleNodeModel("Identity", {{"x"}}, {{"y"}});
  onnx::GraphProto* graph = model.mutable_graph();
  // A sequence of maps and an optional of a sequence of sequences: Loom
  // runs neither.
  graph->mutable_input(0)
      ->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_map_type();
  graph->mutable_output(0)
      ->mutable_type()
      ->mutable_optional_type()
      ->mutable_elem_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_sequence_type();
  graph->add_sparse_initializer();
  EXPECT_EQ(FindUnsupportedFeatures(model),
            (Items{"optional type", "sequence type", "sparse initializer"}));
}

TEST(FindUnsupportedFeatures, SequencesAndOptionalsOfTensorsAreSupported) {
  auto model = SingleNodeModel("Identity", {{"x"}}, {{"y"}});
  onnx::GraphProto* graph = model.mutable_graph();
  graph->mutable_input(0)
      ->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  graph->mutable_output(0)
      ->mutable_type()
      ->mutable_optional_type()
      ->mutable_elem_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::COMPLEX64);
  // Only the element type Loom lacks remains.
  EXPECT_EQ(FindUnsupportedFeatures(model), Items{"dtype complex64"});
}

TEST(OpTypes, DistinctSortedAndQualifiedOutsideTheDefaultDomain) {
  auto model = SingleNodeModel("Relu", {{"x"}}, {{"y"}});
  *model.mutable_graph()->add_node() = model.graph().node(0);
  onnx::NodeProto* add = model.mutable_graph()->add_node();
  add->set_op_type("Add");
  onnx::NodeProto* ml = model.mutable_graph()->add_node();
  ml->set_op_type("Scaler");
  ml->set_domain("ai.onnx.ml");
  onnx::NodeProto* explicit_default = model.mutable_graph()->add_node();
  explicit_default->set_op_type("Abs");
  explicit_default->set_domain("ai.onnx");
  EXPECT_EQ(OpTypes(model), (Items{"Abs", "Add", "Relu", "ai.onnx.ml.Scaler"}));
}

TEST(IsDeliberateLimit, RecognizesLoomsLimitPhrases) {
  EXPECT_TRUE(
      IsDeliberateLimit("node 'c' (Conv): Conv: no kernel for dtype int8 (supported: float32)"));
  EXPECT_TRUE(IsDeliberateLimit(
      "graph 'g': node 's' (Sqrt): input 'x' has dtype int32, which the kernel does not support "
      "(supported: float32, float64, float16)"));
  EXPECT_TRUE(IsDeliberateLimit(
      "graph 'g': node 'bn' (BatchNormalization): training_mode = 1 is not supported "
      "(inference only)"));
  EXPECT_TRUE(IsDeliberateLimit("graph 'g': 1 unsupported op type:\n  Loop: node 'l'"));
  EXPECT_FALSE(IsDeliberateLimit("node 'a' (Add): Add: shapes [2] and [3] do not broadcast"));
  EXPECT_FALSE(IsDeliberateLimit("model.onnx: truncated or corrupted protobuf"));
}

}  // namespace
}  // namespace loom::conformance
