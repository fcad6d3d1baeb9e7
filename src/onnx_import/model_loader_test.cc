// End-to-end: ModelProtos built in code → load_onnx_model_from_bytes →
// loom::Session, compared with results worked out by hand.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;

std::vector<Tensor> RunModel(const std::string& bytes, const std::map<std::string, Tensor>& feeds) {
  Session session(load_onnx_model_from_bytes(bytes, "", "test.onnx"));
  return session.run(feeds);
}

// The error message of loading `bytes`, or "" when it loads.
TEST(OnnxLoader, AddReluWithRawDataInitializer) {
  TestModel m;
  m.Input("x", kFloat, {2, 3});
  m.Initializer(Tensor::from_vector<float>({3}, {1, -2, 0.5f}), "b");
  m.Node("Add", {"x", "b"}, {"sum"}, "add");
  m.Node("Relu", {"sum"}, {"y"}, "relu");
  m.Output("y", kFloat, {2, 3});
  const std::vector<Tensor> out =
      RunModel(m.Serialize(), {{"x", Tensor::from_vector<float>({2, 3}, {0, 1, 2, -3, 4, -1})}});
  ASSERT_EQ(out.size(), 1u);
  // relu(x + b): [1, -1, 2.5, -2, 2, -0.5] → [1, 0, 2.5, 0, 2, 0]
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1, 0, 2.5f, 0, 2, 0}));
}

TEST(OnnxLoader, MetadataIsReportedWhenAsked) {
  TestModel m;
  m.Input("x", kFloat, {2});
  m.Node("Relu", {"x"}, {"y"}, "relu");
  m.Output("y", kFloat, {2});
  m.proto().set_producer_name("pytorch");
  m.proto().set_producer_version("2.5");
  m.proto().set_domain("ai.example");
  m.proto().set_model_version(7);
  m.proto().set_doc_string("a model");
  m.graph().set_name("main_graph");
  m.graph().set_doc_string("the graph");
  for (const auto& [key, value] :
       {std::pair{"author", "me"}, {"license", "x"}, {"author", "you"}}) {
    onnx::StringStringEntryProto* entry = m.proto().add_metadata_props();
    entry->set_key(key);
    entry->set_value(value);
  }
  OnnxModelMetadata metadata;
  load_onnx_model_from_bytes(m.Serialize(), "", "test.onnx", &metadata);
  EXPECT_EQ(metadata.producer_name, "pytorch");
  EXPECT_EQ(metadata.producer_version, "2.5");
  EXPECT_EQ(metadata.domain, "ai.example");
  EXPECT_EQ(metadata.model_version, 7);
  EXPECT_EQ(metadata.doc_string, "a model");
  EXPECT_EQ(metadata.graph_name, "main_graph");
  EXPECT_EQ(metadata.graph_doc_string, "the graph");
  EXPECT_EQ(metadata.metadata_props,
            (std::map<std::string, std::string>{{"author", "you"}, {"license", "x"}}));
}

TEST(OnnxLoader, GraphKeepsNamesInputsOutputsAndSymbols) {
  TestModel m;
  m.Input("x", kFloat, {"batch", 4, kUnnamedDim});
  m.Node("Relu", {"x"}, {"y"}, "r");
  m.Output("y", kFloat, {"batch", 4, kUnnamedDim});
  const Graph g = load_onnx_model_from_bytes(m.Serialize());
  EXPECT_EQ(g.name, "test");
  ASSERT_EQ(g.inputs.size(), 1u);
  const SymbolicShape& shape = *g.inputs[0].type.shape;
  ASSERT_EQ(shape.size(), 3u);
  EXPECT_EQ(shape[0].symbol(), "batch");
  EXPECT_EQ(shape[1].size(), 4);
  EXPECT_FALSE(shape[2].is_known());
  EXPECT_FALSE(shape[2].symbol().empty());
  EXPECT_NE(shape[2].symbol(), "batch");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].name, "r");
}

TEST(OnnxLoader, DynamicBatchRunsAtOneAndEight) {
  TestModel m;
  m.Input("x", kFloat, {"N", 3});
  // W = [[1, 0], [0, 1], [1, 1]] as float_data.
  onnx::TensorProto* w = m.graph().add_initializer();
  w->set_name("W");
  w->set_data_type(kFloat);
  w->add_dims(3);
  w->add_dims(2);
  for (float v : {1.f, 0.f, 0.f, 1.f, 1.f, 1.f}) w->add_float_data(v);
  m.Node("MatMul", {"x", "W"}, {"y"});
  m.Output("y", kFloat, {"N", 2});
  const std::string bytes = m.Serialize();
  Session session(load_onnx_model_from_bytes(bytes));
  for (int batch : {1, 8}) {
    std::vector<float> x(static_cast<size_t>(batch) * 3);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 4.0f;
    const std::vector<Tensor> out = session.run({{"x", Tensor::from_vector<float>({batch, 3}, x)}});
    ASSERT_EQ(out[0].shape(), Shape({batch, 2}));
    const std::vector<float> y = Values(out[0]);
    for (int r = 0; r < batch; ++r) {
      // row · W = [x0 + x2, x1 + x2]
      EXPECT_EQ(y[2 * r], x[3 * r] + x[3 * r + 2]);
      EXPECT_EQ(y[2 * r + 1], x[3 * r + 1] + x[3 * r + 2]);
    }
  }
}

TEST(OnnxLoader, AttributeKindsReachTheKernels) {
  TestModel m;
  m.Input("x", kFloat, {1, 2});
  // FLOAT: LeakyRelu alpha; INTS + STRING: Pad pads through a Constant
  // TENSOR; INT: Concat axis; INTS: Transpose perm.
  SetFloat(m.Node("LeakyRelu", {"x"}, {"lr"}), "alpha", 0.5f);
  SetTensor(m.Node("Constant", {}, {"pads"}), "value",
            Tensor::from_vector<int64_t>({4}, {0, 1, 0, 0}));
  SetString(m.Node("Pad", {"lr", "pads"}, {"padded"}), "mode", "edge");
  SetInt(m.Node("Concat", {"padded", "padded"}, {"cat"}), "axis", 0);
  SetInts(m.Node("Transpose", {"cat"}, {"y"}), "perm", {1, 0});
  m.Output("y", kFloat, {3, 2});
  const std::vector<Tensor> out =
      RunModel(m.Serialize(), {{"x", Tensor::from_vector<float>({1, 2}, {-2, 3})}});
  // lr = [-1, 3]; edge pad left by one → [-1, -1, 3]; concat rows → 2x3;
  // transpose → [[-1, -1], [-1, -1], [3, 3]].
  EXPECT_EQ(out[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-1, -1, -1, -1, 3, 3}));
}

TEST(OnnxLoader, ConstantNodesBecomeInitializers) {
  TestModel m;
  m.Input("x", kFloat, {3});
  SetFloat(m.Node("Constant", {}, {"c_float"}), "value_float", 2.0f);
  SetFloats(m.Node("Constant", {}, {"c_floats"}), "value_floats", {1, 10, 100});
  SetInt(m.Node("Constant", {}, {"c_int"}), "value_int", 7);
  SetInts(m.Node("Constant", {}, {"c_ints"}), "value_ints", {3, 1});
  m.Node("Mul", {"x", "c_float"}, {"a"});
  m.Node("Add", {"a", "c_floats"}, {"y"});
  m.Node("Reshape", {"y", "c_ints"}, {"z"});
  m.Output("z", kFloat, {3, 1});
  m.Output("c_int", kInt64, {});
  const std::string bytes = m.Serialize();
  const Graph g = load_onnx_model_from_bytes(bytes);
  EXPECT_EQ(g.nodes.size(), 3u);  // no Constant nodes left
  ASSERT_TRUE(g.initializers.count("c_ints"));
  EXPECT_EQ(g.initializers.at("c_ints").dtype(), DType::kInt64);
  const std::vector<Tensor> out =
      RunModel(bytes, {{"x", Tensor::from_vector<float>({3}, {1, 2, 3})}});
  EXPECT_EQ(out[0].shape(), Shape({3, 1}));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 14, 106}));
  EXPECT_EQ(out[1].data<int64_t>()[0], 7);
}

TEST(OnnxLoader, InitializerListedAsInputIsAnOverridableDefault) {
  TestModel m(13, /*ir_version=*/8);
  m.Input("x", kFloat, {2});
  m.Input("scale", kFloat, {2});
  m.Initializer(Tensor::from_vector<float>({2}, {10, 100}), "scale");
  m.Node("Mul", {"x", "scale"}, {"y"});
  m.Output("y", kFloat, {2});
  const std::string bytes = m.Serialize();
  const Graph g = load_onnx_model_from_bytes(bytes);
  EXPECT_EQ(g.inputs.size(), 2u);
  Session session(load_onnx_model_from_bytes(bytes));
  const Tensor x = Tensor::from_vector<float>({2}, {1, 2});
  EXPECT_EQ(Values(session.run({{"x", x}})[0]), (std::vector<float>{10, 200}));
  EXPECT_EQ(Values(session.run({{"x", x}, {"scale", Tensor::from_vector<float>({2}, {3, 4})}})[0]),
            (std::vector<float>{3, 8}));
}

TEST(OnnxLoader, BeforeIr4InitializersListedAsInputsStayConstants) {
  TestModel m(11, /*ir_version=*/3);
  m.Input("x", kFloat, {2});
  m.Input("scale", kFloat, {2});
  m.Initializer(Tensor::from_vector<float>({2}, {10, 100}), "scale");
  m.Node("Mul", {"x", "scale"}, {"y"});
  m.Output("y", kFloat, {2});
  const Graph g = load_onnx_model_from_bytes(m.Serialize());
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.inputs[0].name, "x");
}

TEST(OnnxLoader, EmptyAndDuplicateNodeNamesAreMadeUnique) {
  TestModel m;
  m.Input("x", kFloat, {2});
  m.Node("Relu", {"x"}, {"a"}, "same");
  m.Node("Neg", {"a"}, {"b"}, "same");
  m.Node("Abs", {"b"}, {"y"});
  m.Output("y", kFloat, {2});
  const Graph g = load_onnx_model_from_bytes(m.Serialize());
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].name, "same");
  EXPECT_EQ(g.nodes[1].name, "Neg_1");
  EXPECT_EQ(g.nodes[2].name, "Abs_2");
}

TEST(OnnxLoader, EmptyOptionalOutputsGetNamesOrAreDropped) {
  TestModel m;
  m.Input("x", kFloat, {6});
  m.Input("img", kFloat, {1, 1, 2, 2});
  m.Initializer(Tensor::from_vector<int64_t>({3}, {1, 2, 3}), "sizes");
  m.Node("Split", {"x", "sizes"}, {"a", "", "c"}, "split");
  m.Node("Split", {"x"}, {"h0", "", ""}, "thirds");  // Split keeps its output count
  SetInts(m.Node("MaxPool", {"img"}, {"pooled", ""}, "pool"), "kernel_shape", {2, 2});
  m.Output("a", kFloat, {1});
  m.Output("c", kFloat, {3});
  m.Output("h0", kFloat, {2});
  m.Output("pooled", kFloat, {1, 1, 1, 1});
  const std::string bytes = m.Serialize();
  const Graph g = load_onnx_model_from_bytes(bytes);
  const Node* split = g.find_node("split");
  ASSERT_NE(split, nullptr);
  ASSERT_EQ(split->outputs.size(), 3u);
  EXPECT_FALSE(split->outputs[1].empty());
  EXPECT_EQ(g.find_node("thirds")->outputs.size(), 3u);
  EXPECT_EQ(g.find_node("pool")->outputs.size(), 1u);  // unused Indices dropped
  const std::vector<Tensor> out =
      RunModel(bytes, {{"x", Tensor::from_vector<float>({6}, {1, 2, 3, 4, 5, 6})},
                       {"img", Tensor::from_vector<float>({1, 1, 2, 2}, {3, 9, -1, 2})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(Values(out[2]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values(out[3]), (std::vector<float>{9}));
}

TEST(OnnxLoader, UnsupportedOpsAreListedAllAtOnce) {
  TestModel m;
  m.Input("x", kFloat, {1, 4});
  m.Node("ImageDecoder", {"x"}, {"s1"}, "images_a");
  m.Node("ImageDecoder", {"x"}, {"s2"});
  m.Node("LinearClassifier", {"x"}, {"t"}, "linear")->set_domain("ai.onnx.ml");
  m.Node("FusedConv", {"x"}, {"f"}, "fc")->set_domain("com.microsoft");
  m.Node("NoSuchOp", {"x"}, {"n"}, "nothing");
  // Loom's internal ops run only where its optimizer put them.
  m.Node("NchwcReorderInput", {"x"}, {"r"}, "internal");
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", kFloat, {1, 4});
  const std::string error = LoadError(m.Serialize());
  EXPECT_EQ(error.rfind("test.onnx: ", 0), 0u) << error;
  EXPECT_TRUE(Contains(error, "5 unsupported op types")) << error;
  EXPECT_TRUE(Contains(error, "NchwcReorderInput (node 'internal')")) << error;
  EXPECT_TRUE(Contains(error, "ImageDecoder (nodes 'images_a', 'ImageDecoder_1')")) << error;
  EXPECT_TRUE(Contains(error, "ai.onnx.ml::LinearClassifier (node 'linear')")) << error;
  EXPECT_TRUE(Contains(error, "com.microsoft::FusedConv (node 'fc')")) << error;
  EXPECT_TRUE(Contains(error, "NoSuchOp (node 'nothing')")) << error;
}

TEST(OnnxLoader, OpsetOutsideRangeIsRefused) {
  // 25 is newer than the schema Loom is generated from knows; 0 is no opset.
  for (int opset : {0, 25}) {
    TestModel m(opset);
    m.Input("x", kFloat, {1});
    m.Node("Relu", {"x"}, {"y"});
    m.Output("y", kFloat, {1});
    const std::string error = LoadError(m.Serialize());
    EXPECT_TRUE(Contains(error, "opset " + std::to_string(opset))) << error;
    EXPECT_TRUE(Contains(error, "1 to 24")) << error;
  }
  TestModel none;
  none.proto().clear_opset_import();
  EXPECT_TRUE(Contains(LoadError(none.Serialize()), "imports no opset"))
      << LoadError(none.Serialize());
}

TEST(OnnxLoader, OldOpsetModelLoads) {
  // Relu's version at opset 7 is 6, the same definition as its newest but
  // for element types.
  TestModel m(7);
  m.Input("x", kFloat, {2});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", kFloat, {2});
  EXPECT_EQ(LoadError(m.Serialize()), "");
  Session session(load_onnx_model_from_bytes(m.Serialize(), "", "test.onnx"));
  const Tensor out = session.run({{"x", Tensor::from_vector<float>({2}, {-1.0f, 2.0f})}})[0];
  EXPECT_EQ(out.data<float>()[0], 0.0f);
  EXPECT_EQ(out.data<float>()[1], 2.0f);
}

TEST(OnnxLoader, UnusedForeignDomainImportIsAllowed) {
  TestModel m;
  onnx::OperatorSetIdProto* ml = m.proto().add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(3);
  m.Input("x", kFloat, {1});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", kFloat, {1});
  EXPECT_EQ(LoadError(m.Serialize()), "");
}

TEST(OnnxLoader, VerifierErrorsCarryTheLabel) {
  // An input nothing defines.
  TestModel m;
  m.Input("x", kFloat, {2});
  m.Node("Add", {"x", "ghost"}, {"y"});
  m.Output("y", kFloat, {2});
  const std::string error = LoadError(m.Serialize());
  EXPECT_EQ(error.rfind("test.onnx: ", 0), 0u) << error;
  EXPECT_TRUE(Contains(error, "ghost")) << error;

  // Shapes that cannot broadcast: loom::verify_graph refuses it.
  TestModel bad;
  bad.Input("a", kFloat, {2, 3});
  bad.Input("b", kFloat, {4});
  bad.Node("Add", {"a", "b"}, {"y"}, "add");
  bad.Output("y", kFloat, {2, 3});
  const std::string verify_error = LoadError(bad.Serialize());
  EXPECT_EQ(verify_error.rfind("test.onnx: ", 0), 0u) << verify_error;
  EXPECT_TRUE(Contains(verify_error, "add")) << verify_error;
}

TEST(OnnxLoader, UnsupportedTypesAreRefused) {
  TestModel complex;
  complex.Input("s", onnx::TensorProto::COMPLEX64, {1});
  complex.Node("Identity", {"s"}, {"y"});
  complex.Output("y", onnx::TensorProto::COMPLEX64, {1});
  EXPECT_TRUE(Contains(LoadError(complex.Serialize()), "COMPLEX64"))
      << LoadError(complex.Serialize());

  // Sequences of tensors load (sequence_test.cc); sequences of maps do not.
  TestModel seq;
  onnx::ValueInfoProto* in = seq.graph().add_input();
  in->set_name("x");
  in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_map_type();
  seq.Node("Identity", {"x"}, {"y"});
  seq.UntypedOutput("y");
  const std::string error = LoadError(seq.Serialize());
  EXPECT_TRUE(Contains(error, "a sequence of non-tensors")) << error;
}

TEST(OnnxLoader, FilesLoadAndErrorsNameThePath) {
  const std::string dir = ::testing::TempDir() + "/loom_onnx_loader_test";
  std::filesystem::create_directories(dir);
  TestModel m;
  m.Input("x", kFloat, {1});
  m.Node("Neg", {"x"}, {"y"});
  m.Output("y", kFloat, {1});
  const std::string path = dir + "/neg.onnx";
  std::ofstream(path, std::ios::binary) << m.Serialize();
  Session session(load_onnx_model(path));
  EXPECT_EQ(Values(session.run({{"x", Tensor::from_vector<float>({1}, {2})}})[0]),
            (std::vector<float>{-2}));

  const auto error_of = [](const std::string& p) -> std::string {
    try {
      load_onnx_model(p);
    } catch (const InvalidArgumentError& e) {
      return e.what();
    }
    return "";
  };
  const std::string missing = error_of(dir + "/missing.onnx");
  EXPECT_EQ(missing.rfind(dir + "/missing.onnx: ", 0), 0u) << missing;
  EXPECT_EQ(error_of(dir).rfind(dir + ": ", 0), 0u) << error_of(dir);
  std::ofstream(dir + "/text.onnx") << "this is not a protobuf";
  EXPECT_TRUE(Contains(error_of(dir + "/text.onnx"), "truncated or corrupted"))
      << error_of(dir + "/text.onnx");
  ASSERT_EQ(mkfifo((dir + "/pipe.onnx").c_str(), 0600), 0);
  EXPECT_TRUE(Contains(error_of(dir + "/pipe.onnx"), "not a regular file"))
      << error_of(dir + "/pipe.onnx");
  std::ofstream(dir + "/empty.onnx").close();
  EXPECT_TRUE(Contains(error_of(dir + "/empty.onnx"), "empty")) << error_of(dir + "/empty.onnx");
  std::filesystem::remove_all(dir);
}

TEST(OnnxLoader, ConcurrentLoadsAgree) {
  TestModel m(11);
  m.Input("x", kFloat, {2, 2});
  SetInts(m.Node("ReduceSum", {"x"}, {"y"}), "axes", {1});
  m.Output("y", kFloat, {2, 1});
  const std::string bytes = m.Serialize();
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (size_t t = 0; t < ok.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const Graph g = load_onnx_model_from_bytes(bytes);
        ok[t] += g.nodes.size() == 1 && g.nodes[0].inputs.size() == 2 ? 1 : 0;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int count : ok) EXPECT_EQ(count, 20);
}

TEST(OnnxLoader, NewerIrVersionConvertsAndMissingIrVersionIsRefused) {
  TestModel m(17, /*ir_version=*/onnx::Version::IR_VERSION + 2);
  m.Input("x", kFloat, {2});
  m.Node("Neg", {"x"}, {"y"});
  m.Output("y", kFloat, {2});
  EXPECT_EQ(LoadError(m.Serialize()), "");
  TestModel unset(13, /*ir_version=*/0);
  unset.Input("x", kFloat, {2});
  unset.Node("Neg", {"x"}, {"y"});
  unset.Output("y", kFloat, {2});
  EXPECT_TRUE(Contains(LoadError(unset.Serialize()), "IR version 0"))
      << LoadError(unset.Serialize());
}

TEST(OnnxLoader, StringConstantsAndInputsRunThroughStringOps) {
  TestModel m(/*opset=*/20);
  m.Input("x", onnx::TensorProto::STRING, {2});
  SetString(m.Node("Constant", {}, {"s"}, "text"), "value_string", "-suffix");
  m.Node("StringConcat", {"x", "s"}, {"joined"}, "concat");
  m.Node("Equal", {"joined", "s"}, {"same"}, "equal");
  m.Output("joined", onnx::TensorProto::STRING, {2});
  m.Output("same", onnx::TensorProto::BOOL, {2});
  const std::vector<Tensor> out =
      RunModel(m.Serialize(), {{"x", Tensor::from_vector<std::string>({2}, {"a", ""})}});
  ASSERT_EQ(out.size(), 2u);
  const std::string* joined = out[0].data<std::string>();
  EXPECT_EQ(std::vector<std::string>(joined, joined + 2),
            (std::vector<std::string>{"a-suffix", "-suffix"}));
  EXPECT_EQ(out[1].data<bool>()[0], false);
  EXPECT_EQ(out[1].data<bool>()[1], true);
}

}  // namespace
}  // namespace loom::onnx_import::testing
