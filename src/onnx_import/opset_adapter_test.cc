// Each rewrite: the old-opset form and the opset-13 form of the same
// computation load into graphs that give the same outputs, and both match
// values worked out by hand.
#include "onnx_import/opset_adapter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

std::vector<Tensor> RunModel(const TestModel& m, const Tensor& x) {
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  return session.run({{"x", x}});
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << "index " << i;
}

const Tensor kX23 = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(OpsetAdapter, ReduceSumAxesAttributeBecomesInputBeforeOpset13) {
  TestModel old_form(11);
  old_form.Input("x", kFloat, {2, 3});
  SetInt(SetInts(old_form.Node("ReduceSum", {"x"}, {"y"}, "sum"), "axes", {1}), "keepdims", 0);
  old_form.Output("y", kFloat, {2});

  TestModel new_form(13);
  new_form.Input("x", kFloat, {2, 3});
  new_form.Initializer(Tensor::from_vector<int64_t>({1}, {1}), "axes");
  SetInt(new_form.Node("ReduceSum", {"x", "axes"}, {"y"}, "sum"), "keepdims", 0);
  new_form.Output("y", kFloat, {2});

  const Graph g = load_onnx_model_from_bytes(old_form.Serialize());
  const Node* sum = g.find_node("sum");
  ASSERT_EQ(sum->inputs.size(), 2u);
  EXPECT_EQ(sum->attributes.count("axes"), 0u);
  EXPECT_EQ(g.initializers.at(sum->inputs[1]).data<int64_t>()[0], 1);

  ExpectNear(Values(RunModel(old_form, kX23)[0]), {6, 15});
  ExpectNear(Values(RunModel(new_form, kX23)[0]), {6, 15});
}

TEST(OpsetAdapter, OtherReductionsTakeAxesAsInputAtEveryOpset) {
  const double e = std::exp(1.0);
  const std::map<std::string, std::vector<float>> expected = {
      {"ReduceMean", {2, 5}},
      {"ReduceMax", {3, 6}},
      {"ReduceMin", {1, 4}},
      {"ReduceProd", {6, 120}},
      {"ReduceL1", {6, 15}},
      {"ReduceL2", {static_cast<float>(std::sqrt(14.0)), static_cast<float>(std::sqrt(77.0))}},
      {"ReduceLogSumExp",
       {static_cast<float>(std::log(e + e * e + e * e * e)),
        static_cast<float>(std::log(std::pow(e, 4) + std::pow(e, 5) + std::pow(e, 6)))}},
      {"ReduceSumSquare", {14, 77}},
  };
  for (const auto& [op, want] : expected) {
    for (int opset : {11, 13, 17}) {
      TestModel m(opset);
      m.Input("x", kFloat, {2, 3});
      SetInt(SetInts(m.Node(op, {"x"}, {"y"}, "r"), "axes", {-1}), "keepdims", 0);
      m.Output("y", kFloat, {2});
      const Graph g = load_onnx_model_from_bytes(m.Serialize());
      EXPECT_EQ(g.find_node("r")->inputs.size(), 2u) << op;
      ExpectNear(Values(RunModel(m, kX23)[0]), want);
    }
  }
}

TEST(OpsetAdapter, ReductionWithoutAxesStillReducesEverything) {
  TestModel m(11);
  m.Input("x", kFloat, {2, 3});
  SetInt(m.Node("ReduceSum", {"x"}, {"y"}), "keepdims", 0);
  m.Output("y", kFloat, {});
  ExpectNear(Values(RunModel(m, kX23)[0]), {21});
}

TEST(OpsetAdapter, SqueezeAndUnsqueezeAxesBecomeInputs) {
  const Tensor x = Tensor::from_vector<float>({1, 3, 1}, {7, 8, 9});
  for (int opset : {11, 12, 13}) {
    TestModel m(opset);
    m.Input("x", kFloat, {1, 3, 1});
    if (opset < 13) {
      SetInts(m.Node("Squeeze", {"x"}, {"s"}, "squeeze"), "axes", {0, 2});
      SetInts(m.Node("Unsqueeze", {"s"}, {"y"}, "unsqueeze"), "axes", {0});
    } else {
      m.Initializer(Tensor::from_vector<int64_t>({2}, {0, 2}), "sq_axes");
      m.Initializer(Tensor::from_vector<int64_t>({1}, {0}), "unsq_axes");
      m.Node("Squeeze", {"x", "sq_axes"}, {"s"}, "squeeze");
      m.Node("Unsqueeze", {"s", "unsq_axes"}, {"y"}, "unsqueeze");
    }
    m.Output("s", kFloat, {3});
    m.Output("y", kFloat, {1, 3});
    const Graph g = load_onnx_model_from_bytes(m.Serialize());
    EXPECT_EQ(g.find_node("squeeze")->inputs.size(), 2u);
    EXPECT_TRUE(g.find_node("unsqueeze")->attributes.empty());
    const std::vector<Tensor> out = RunModel(m, x);
    EXPECT_EQ(out[0].shape(), Shape({3})) << opset;
    EXPECT_EQ(out[1].shape(), Shape({1, 3})) << opset;
    ExpectNear(Values(out[1]), {7, 8, 9});
  }
}

TEST(OpsetAdapter, SplitSizesBecomeInputAndEqualSplitGetsItsCount) {
  const Tensor x = Tensor::from_vector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  for (int opset : {11, 13}) {
    TestModel m(opset);
    m.Input("x", kFloat, {2, 3});
    if (opset < 13) {
      SetInt(SetInts(m.Node("Split", {"x"}, {"a", "b"}, "sized"), "split", {1, 2}), "axis", 1);
    } else {
      m.Initializer(Tensor::from_vector<int64_t>({2}, {1, 2}), "sizes");
      SetInt(m.Node("Split", {"x", "sizes"}, {"a", "b"}, "sized"), "axis", 1);
    }
    m.Node("Split", {"x"}, {"r0", "r1"}, "equal");  // axis 0, equal parts
    m.Output("a", kFloat, {2, 1});
    m.Output("b", kFloat, {2, 2});
    m.Output("r0", kFloat, {1, 3});
    m.Output("r1", kFloat, {1, 3});
    const Graph g = load_onnx_model_from_bytes(m.Serialize());
    EXPECT_EQ(g.find_node("sized")->inputs.size(), 2u);
    EXPECT_EQ(std::get<int64_t>(g.find_node("equal")->attributes.at("num_outputs")), 2);
    const std::vector<Tensor> out = RunModel(m, x);
    ExpectNear(Values(out[0]), {1, 4});
    ExpectNear(Values(out[1]), {2, 3, 5, 6});
    ExpectNear(Values(out[2]), {1, 2, 3});
    ExpectNear(Values(out[3]), {4, 5, 6});
  }
}

// Softmax over each group of `n` consecutive elements.
std::vector<float> GroupSoftmax(const std::vector<float>& x, size_t n, bool log) {
  std::vector<float> y(x.size());
  for (size_t g = 0; g < x.size(); g += n) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[g + i]));
    for (size_t i = 0; i < n; ++i) {
      const double v = std::exp(static_cast<double>(x[g + i])) / sum;
      y[g + i] = static_cast<float>(log ? std::log(v) : v);
    }
  }
  return y;
}

TEST(OpsetAdapter, PreOpset13SoftmaxFlattensAtItsAxis) {
  const std::vector<float> values = {0, 1, 2, 3, -1, 0.5f, 4, -2};
  const Tensor x = Tensor::from_vector<float>({2, 2, 2}, values);
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    const bool log = op == "LogSoftmax";
    // Opset 11: axis 1 of a rank-3 input normalizes the last 4 elements
    // together (2 x 2 flattened), not each axis-1 slice.
    TestModel old_form(11);
    old_form.Input("x", kFloat, {2, 2, 2});
    SetInt(old_form.Node(op, {"x"}, {"y"}, "sm"), "axis", 1);
    old_form.Output("y", kFloat, {2, 2, 2});

    // The same computation spelled in opset 13.
    TestModel new_form(13);
    new_form.Input("x", kFloat, {2, 2, 2});
    new_form.Initializer(Tensor::from_vector<int64_t>({3}, {2, 2, 2}), "shape");
    SetInt(new_form.Node("Flatten", {"x"}, {"f"}), "axis", 1);
    SetInt(new_form.Node(op, {"f"}, {"s"}), "axis", 1);
    new_form.Node("Reshape", {"s", "shape"}, {"y"});
    new_form.Output("y", kFloat, {2, 2, 2});

    const std::vector<float> want = GroupSoftmax(values, 4, log);
    ExpectNear(Values(RunModel(old_form, x)[0]), want);
    ExpectNear(Values(RunModel(new_form, x)[0]), want);
    // The rewritten node keeps its name.
    EXPECT_NE(load_onnx_model_from_bytes(old_form.Serialize()).find_node("sm"), nullptr);
  }
}

TEST(OpsetAdapter, PreOpset13SoftmaxOnTheLastAxisStaysOneNode) {
  const std::vector<float> values = {0, 1, 2, 3, -1, 0.5f};
  const Tensor x = Tensor::from_vector<float>({2, 3}, values);
  // Default axis 1 on a rank-2 input, and axis -1 on any input: the last
  // axis, where both semantics agree.
  for (int variant = 0; variant < 2; ++variant) {
    TestModel m(12);
    m.Input("x", kFloat, {2, 3});
    onnx::NodeProto* node = m.Node("Softmax", {"x"}, {"y"}, "sm");
    if (variant == 1) SetInt(node, "axis", -1);
    m.Output("y", kFloat, {2, 3});
    const Graph g = load_onnx_model_from_bytes(m.Serialize());
    EXPECT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(std::get<int64_t>(g.find_node("sm")->attributes.at("axis")), -1);
    ExpectNear(Values(RunModel(m, x)[0]), GroupSoftmax(values, 3, false));
  }
}

TEST(OpsetAdapter, PreOpset13SoftmaxOfUnknownRankIsCoercedAtRunTime) {
  // The Softmax input is an intermediate with no value_info, so its rank is
  // unknown at import; the default axis 1 must still mean "flatten at 1".
  const std::vector<float> values = {0, 1, 2, 3, -1, 0.5f, 4, -2};
  TestModel m(11);
  m.Input("x", kFloat, {2, 2, 2});
  m.Node("Relu", {"x"}, {"r"});
  m.Node("Softmax", {"r"}, {"y"}, "sm");
  m.Output("y", kFloat, {2, 2, 2});
  std::vector<float> relu = values;
  for (float& v : relu) v = std::max(v, 0.0f);
  ExpectNear(Values(RunModel(m, Tensor::from_vector<float>({2, 2, 2}, values))[0]),
             GroupSoftmax(relu, 4, false));
}

TEST(OpsetAdapter, SoftmaxAtOpset13IsUntouched) {
  TestModel m(13);
  m.Input("x", kFloat, {2, 2});
  SetInt(m.Node("Softmax", {"x"}, {"y"}, "sm"), "axis", 0);
  m.Output("y", kFloat, {2, 2});
  const Graph g = load_onnx_model_from_bytes(m.Serialize());
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(g.find_node("sm")->attributes.at("axis")), 0);
}

}  // namespace
}  // namespace loom::onnx_import::testing

namespace loom::onnx_import::testing {
namespace {

TEST(OpsetAdapter, AttentionLearnsItsOutputCount) {
  // Two Attention nodes on the same inputs: one with Y only (the fused
  // path), one with the qk_matmul_output too (the plain path); same Y.
  TestModel m(23);
  for (const char* name : {"q", "k", "v"}) m.Input(name, kFloat, {1, 2, 3, 4});
  m.Node("Attention", {"q", "k", "v"}, {"y"}, "fused");
  m.Node("Attention", {"q", "k", "v"}, {"y2", "", "", "qk"}, "plain");
  m.Output("y", kFloat, {1, 2, 3, 4});
  m.Output("y2", kFloat, {1, 2, 3, 4});
  m.Output("qk", kFloat, {1, 2, 3, 3});
  Graph g = load_onnx_model_from_bytes(m.Serialize());
  EXPECT_EQ(std::get<int64_t>(g.find_node("fused")->attributes.at("loom_outputs")), 1);
  EXPECT_EQ(std::get<int64_t>(g.find_node("plain")->attributes.at("loom_outputs")), 4);
  std::vector<float> values(24);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<float>(i));
  const Tensor t = Tensor::from_vector<float>({1, 2, 3, 4}, values);
  Session session(std::move(g));
  const std::vector<Tensor> out = session.run({{"q", t}, {"k", t}, {"v", t}});
  ASSERT_EQ(out.size(), 3u);
  ExpectNear(Values(out[0]), Values(out[1]));
  EXPECT_EQ(out[2].shape(), Shape({1, 2, 3, 3}));
}

}  // namespace
}  // namespace loom::onnx_import::testing
