#include "demo_network.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "loom/session.h"

namespace loom::cli {
namespace {

Tensor Image(int64_t batch) {
  std::mt19937 engine(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(batch * 3 * 64 * 64));
  for (float& v : values) v = uniform(engine);
  return Tensor::from_vector(Shape({batch, 3, 64, 64}), values);
}

TEST(DemoNetwork, DeclaresImageInAndProbabilitiesOut) {
  const Graph g = DemoNetwork();
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.inputs[0].name, kDemoInputName);
  EXPECT_EQ(g.inputs[0].type.to_string(), "float32[N, 3, 64, 64]");
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].name, kDemoOutputName);
}

TEST(DemoNetwork, HasTwoTowersThatBothReadThePooledStem) {
  const Graph g = DemoNetwork();
  const Node* pool = g.find_node("stem_pool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->op_type, "MaxPool");
  for (const char* tower : {"tower_a_conv1", "tower_b_conv1"}) {
    const Node* conv = g.find_node(tower);
    ASSERT_NE(conv, nullptr) << tower;
    EXPECT_EQ(conv->op_type, "Conv");
    EXPECT_EQ(conv->inputs[0], pool->outputs[0]) << tower;
  }
  // The towers only meet at the join.
  const Node* join = g.find_node("join");
  ASSERT_NE(join, nullptr);
  EXPECT_EQ(join->inputs.size(), 2u);
  std::set<std::string> ops;
  for (const Node& node : g.nodes) ops.insert(node.op_type);
  for (const char* op : {"Conv", "Relu", "MaxPool", "Concat", "MatMul", "Softmax"}) {
    EXPECT_EQ(ops.count(op), 1u) << op;
  }
}

TEST(DemoNetwork, OutputsAreProbabilitiesPerImage) {
  const Session session(DemoNetwork());
  const std::vector<Tensor> out = session.run({{kDemoInputName, Image(3)}});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), Shape({3, kDemoClasses}));
  const float* p = out[0].data<float>();
  for (int64_t row = 0; row < 3; ++row) {
    double sum = 0;
    for (int64_t c = 0; c < kDemoClasses; ++c) {
      EXPECT_GT(p[row * kDemoClasses + c], 0.0f);
      EXPECT_LT(p[row * kDemoClasses + c], 1.0f);
      sum += p[row * kDemoClasses + c];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  // Not a flat distribution: the weights make the classes differ.
  const auto [lo, hi] = std::minmax_element(p, p + kDemoClasses);
  EXPECT_GT(*hi - *lo, 1e-3f);
}

TEST(DemoNetwork, IsTheSameOnEveryBuild) {
  const Tensor image = Image(2);
  const std::vector<Tensor> a = Session(DemoNetwork()).run({{kDemoInputName, image}});
  const std::vector<Tensor> b = Session(DemoNetwork()).run({{kDemoInputName, image}});
  for (int64_t i = 0; i < a[0].num_elements(); ++i) {
    EXPECT_EQ(a[0].data<float>()[i], b[0].data<float>()[i]) << i;
  }
}

}  // namespace
}  // namespace loom::cli
