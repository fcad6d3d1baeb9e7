// save_onnx_model: graphs written as ONNX and read back by load_onnx_model
// compute what they computed before, before and after optimization.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "loom_onnx/onnx.pb.h"
#include "onnx_import/testing/test_model.h"
#include "runtime/testing/model_architectures.h"
#include "runtime/testing/test_graphs.h"

namespace loom::onnx_import::testing {
namespace {

Tensor RandomInput(const Shape& shape, int seed) {
  Tensor tensor(DType::kFloat32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  float* data = tensor.data<float>();
  for (int64_t i = 0; i < tensor.num_elements(); ++i) data[i] = uniform(rng);
  return tensor;
}

std::vector<Tensor> RunAt(Graph graph, const std::map<std::string, Tensor>& feeds, int level) {
  SessionOptions options;
  options.optimization_level = level;
  Session session(std::move(graph), options);
  return session.run(feeds);
}

void ExpectNear(const std::vector<Tensor>& a, const std::vector<Tensor>& b, float tolerance) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape());
    const std::vector<float> x = Values(a[i]), y = Values(b[i]);
    for (size_t j = 0; j < x.size(); ++j) ASSERT_NEAR(x[j], y[j], tolerance) << i << ":" << j;
  }
}

TEST(OnnxWriter, ImportedModelRoundTripsToTheSameGraph) {
  TestModel m;
  m.Input("x", onnx::TensorProto::FLOAT, {"N", 3});
  m.Initializer(Tensor::from_vector<float>({3}, {1, -2, 0.5f}), "b");
  m.Node("Add", {"x", "b"}, {"sum"}, "add");
  SetInt(m.Node("Softmax", {"sum"}, {"y"}, "softmax"), "axis", 1);
  m.Output("y", onnx::TensorProto::FLOAT, {"N", 3});
  const Graph original = load_onnx_model_from_bytes(m.Serialize(), "", "m.onnx");
  const Graph again =
      load_onnx_model_from_bytes(save_onnx_model_to_bytes(original), "", "saved.onnx");
  EXPECT_EQ(again.to_string(), original.to_string());
  const std::map<std::string, Tensor> feeds{{"x", RandomInput(Shape({4, 3}), 1)}};
  ExpectNear(RunAt(again, feeds, 0), RunAt(original, feeds, 0), 0);
}

TEST(OnnxWriter, PlainOnnxNodesStayInTheDefaultDomainAndLoomsInAiLoom) {
  Session session(runtime::testing::MobileNetV2Graph());  // level 2: fusions, NCHWc
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(save_onnx_model_to_bytes(session.graph())));
  EXPECT_EQ(model.ir_version(), 12);
  int loom_nodes = 0, onnx_nodes = 0;
  for (const onnx::NodeProto& node : model.graph().node()) {
    if (node.domain() == "ai.loom") {
      ++loom_nodes;
    } else {
      EXPECT_EQ(node.domain(), "") << node.op_type();
      ++onnx_nodes;
    }
  }
  EXPECT_GT(loom_nodes, 0);  // the blocked layout's nodes and fused convolutions
  ASSERT_EQ(model.opset_import_size(), 2);
  EXPECT_EQ(model.opset_import(1).domain(), "ai.loom");
}

TEST(OnnxWriter, ImportedAttentionStaysAnOnnxNodeAndRoundTrips) {
  // The importer tells Attention its output count (attribute loom_outputs);
  // the writer leaves that hint out and the importer adds it again.
  TestModel m(/*opset=*/23, /*ir_version=*/10);
  for (const char* name : {"q", "k", "v"}) m.Input(name, onnx::TensorProto::FLOAT, {1, 2, 3, 4});
  m.Node("Attention", {"q", "k", "v"}, {"y"}, "attention");
  m.Output("y", onnx::TensorProto::FLOAT, {1, 2, 3, 4});
  const Graph original = load_onnx_model_from_bytes(m.Serialize(), "", "m.onnx");
  ASSERT_EQ(original.nodes.size(), 1u);
  EXPECT_TRUE(original.nodes[0].attributes.count("loom_outputs"));
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(save_onnx_model_to_bytes(original)));
  ASSERT_EQ(model.graph().node_size(), 1);
  EXPECT_EQ(model.graph().node(0).domain(), "");
  EXPECT_EQ(model.graph().node(0).attribute_size(), 0);
  EXPECT_EQ(model.opset_import_size(), 1);
  const Graph again =
      load_onnx_model_from_bytes(save_onnx_model_to_bytes(original), "", "saved.onnx");
  EXPECT_EQ(again.to_string(), original.to_string());
}

TEST(OnnxWriter, OptimizedGraphReadBackComputesTheSame) {
  for (Graph (*make)() : {&runtime::testing::MobileNetV2Graph, &runtime::testing::MlpGraph}) {
    const Graph graph = make();
    const Shape shape =
        graph.inputs[0].type.shape->size() == 4 ? Shape({2, 3, 224, 224}) : Shape({2, 784});
    const std::map<std::string, Tensor> feeds{{"input", RandomInput(shape, 2)}};
    Session optimized(graph);
    const std::vector<Tensor> expected = optimized.run(feeds);
    const Graph saved =
        load_onnx_model_from_bytes(save_onnx_model_to_bytes(optimized.graph()), "", "opt.onnx");
    // Run as written (level 0) and optimized once more (level 2).
    ExpectNear(RunAt(saved, feeds, 0), expected, 1e-5f);
    ExpectNear(RunAt(saved, feeds, 2), expected, 1e-4f);
  }
}

TEST(OnnxWriter, UnwritablePathIsAnErrorNamingIt) {
  const Graph graph = runtime::testing::ChainGraph(2, 4);
  try {
    save_onnx_model(graph, "/nonexistent-dir/model.onnx");
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& error) {
    EXPECT_TRUE(Contains(error.what(), "/nonexistent-dir/model.onnx")) << error.what();
  }
  const std::string path = ::testing::TempDir() + "/loom_writer_test.onnx";
  save_onnx_model(graph, path);
  EXPECT_EQ(load_onnx_model(path).to_string(), graph.to_string());
  std::filesystem::remove(path);
}

TEST(OnnxWriter, ForeignDomainsOtherThanLoomsStayRefused) {
  TestModel m;
  m.Input("x", onnx::TensorProto::FLOAT, {2});
  m.Node("FusedMatMul", {"x", "x"}, {"y"}, "fused")->set_domain("com.microsoft");
  m.Output("y", onnx::TensorProto::FLOAT, {2});
  EXPECT_TRUE(Contains(LoadError(m.Serialize()), "com.microsoft::FusedMatMul"));
}

}  // namespace
}  // namespace loom::onnx_import::testing
