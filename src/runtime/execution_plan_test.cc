#include "runtime/execution_plan.h"

#include <gtest/gtest.h>

#include "runtime/testing/test_graphs.h"

namespace loom::runtime {
namespace {

const PlanNode& NodeNamed(const ExecutionPlan& plan, const std::string& name) {
  for (const PlanNode& node : plan.nodes()) {
    if (node.name == name) return node;
  }
  throw std::runtime_error("no node " + name);
}

TEST(ExecutionPlan, RecordsProducersSuccessorsAndReads) {
  const Graph graph = testing::TwoBranchGraph(4, 8, 2);
  const ExecutionPlan plan(graph, kernels::Isa::kPortable);
  ASSERT_EQ(plan.nodes().size(), 9u);
  const PlanNode& join = NodeNamed(plan, "join");
  EXPECT_EQ(join.num_producers, 2);
  EXPECT_TRUE(join.successors.empty());
  const PlanNode& first = NodeNamed(plan, "a_matmul_0");
  EXPECT_EQ(first.num_producers, 0);  // reads the graph input and a constant
  ASSERT_EQ(first.successors.size(), 1u);
  EXPECT_EQ(plan.nodes()[first.successors[0]].name, "a_abs_0");
  const int x = plan.FindSlot("x");
  EXPECT_EQ(plan.num_reads(x), 2);  // both branches
  EXPECT_EQ(plan.producer(x), -1);
  EXPECT_EQ(plan.constant(x), nullptr);
  EXPECT_NE(plan.constant(first.inputs[1]), nullptr);
  EXPECT_EQ(plan.FindSlot("no such value"), -1);
  // Topological: every successor comes later.
  for (size_t i = 0; i < plan.nodes().size(); ++i) {
    for (int successor : plan.nodes()[i].successors) EXPECT_GT(successor, static_cast<int>(i));
  }
}

TEST(ExecutionPlan, ConstantWeightsGetPreparedKernels) {
  const ExecutionPlan plan(testing::SmallConvNet(), kernels::Isa::kPortable);
  int prepared_conv = 0;
  int prepared_matmul = 0;
  for (const PlanNode& node : plan.nodes()) {
    const std::string kind = node.kernel->kind();
    if (node.op_type == "Conv") {
      EXPECT_EQ(kind, "prepared conv");
      ++prepared_conv;
    } else if (node.op_type == "Gemm") {
      EXPECT_EQ(kind, "prepared matmul");
      ++prepared_matmul;
    } else {
      EXPECT_EQ(kind, "registry") << node.op_type;
    }
  }
  EXPECT_EQ(prepared_conv, 4);
  EXPECT_EQ(prepared_matmul, 1);
}

TEST(ExecutionPlan, ANodeReadingOneProducerTwiceWaitsForItOnce) {
  GraphBuilder b("square");
  const std::string x = b.input("x", DType::kFloat32, {4});
  const std::string r = b.op("Relu", {x}, {}, "r");
  b.output(b.op("Mul", {r, r}, {}, "m"), "y");
  const ExecutionPlan plan(b.build(), kernels::Isa::kPortable);
  EXPECT_EQ(NodeNamed(plan, "m").num_producers, 1);
  EXPECT_EQ(NodeNamed(plan, "r").successors.size(), 1u);
  EXPECT_EQ(plan.num_reads(plan.FindSlot("r")), 2);
}

}  // namespace
}  // namespace loom::runtime
