#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "graph/passes/passes.h"
#include "graph/passes/testing/graph_eval.h"
#include "graph/type_inference.h"
#include "kernels/testing/kernel_test_util.h"

namespace loom::graph {
namespace {

using kernels::testing::BitwiseEqual;
using kernels::testing::RandomTensor;
using testing::EvaluateGraph;
using testing::EvaluateNode;
using testing::Floats;

Tensor ZeroPoint(DType dtype, int32_t value) {
  return RandomTensor(dtype, Shape({}), 1, value, value);
}

int32_t Lowest(DType dtype) { return dtype == DType::kInt8 ? -128 : 0; }

struct AddSpec {
  DType a_dtype = DType::kUInt8;
  DType b_dtype = DType::kUInt8;
  DType y_dtype = DType::kUInt8;
  bool relu = false;
  SymbolicShape b_dims = {2, 3, 5, 7};  // a's are {2, 3, 5, 7}
  bool per_axis_b = false;              // b's DQ per channel (axis 1)
  bool scale_as_input = false;          // a's scale a graph input
  bool add_read_twice = false;          // a Neg reads the Add's output too
  bool add_is_output = false;           // the Add's output is fetched too
  bool relu_is_output = false;          // the Relu's output is fetched too
  bool dq_read_twice = false;           // a Neg reads a's DQ output too
  bool int16_y = false;                 // the Q writes int16
};

// a → DequantizeLinear ─┐
//                       ├→ Add → [Relu →] QuantizeLinear → y
// b → DequantizeLinear ─┘
Graph AddGraph(const AddSpec& spec) {
  GraphBuilder g("qdq");
  const std::string a = g.input("a", spec.a_dtype, {2, 3, 5, 7});
  const std::string b = g.input("b", spec.b_dtype, spec.b_dims);
  const std::string a_scale = spec.scale_as_input ? g.input("a_scale", DType::kFloat32, {})
                                                  : g.constant(Floats({}, {0.031f}), "a_scale");
  const std::string a_zp = g.constant(ZeroPoint(spec.a_dtype, Lowest(spec.a_dtype) + 121), "a_zp");
  const std::string a_f = g.op("DequantizeLinear", {a, a_scale, a_zp}, {}, "a_dq");
  std::string b_f;
  if (spec.per_axis_b) {
    b_f = g.op("DequantizeLinear",
               {b, g.constant(Floats({3}, {0.047f, 0.05f, 0.04f}), "b_scale"),
                g.constant(Tensor(spec.b_dtype, Shape({3})), "b_zp")},
               Attributes().set("axis", int64_t{1}), "b_dq");
  } else {
    b_f = g.op("DequantizeLinear",
               {b, g.constant(Floats({1}, {0.047f}), "b_scale"),
                g.constant(ZeroPoint(spec.b_dtype, Lowest(spec.b_dtype) + 133), "b_zp")},
               {}, "b_dq");
  }
  std::string sum = g.op("Add", {a_f, b_f}, {}, "add");
  if (spec.add_read_twice) g.output(g.op("Neg", {sum}, {}, "neg"), "n");
  if (spec.add_is_output) g.output(sum);
  if (spec.relu) {
    const std::string add = sum;
    sum = g.op("Relu", {add}, {}, "relu");
    if (spec.relu_is_output) g.output(sum);
  }
  const std::string y_zp = spec.int16_y ? g.constant(ZeroPoint(DType::kInt16, 0), "y_zp")
                                        : g.constant(ZeroPoint(spec.y_dtype, 0), "y_zp");
  g.output(
      g.op("QuantizeLinear", {sum, g.constant(Floats({}, {0.052f}), "y_scale"), y_zp}, {}, "y_q"),
      "y");
  if (spec.dq_read_twice) g.output(g.op("Neg", {a_f}, {}, "a_neg"), "an");
  Graph graph = g.build();
  InferTypes(graph);
  return graph;
}

std::map<std::string, Tensor> Feeds(const Graph& graph, uint32_t seed) {
  std::map<std::string, Tensor> feeds;
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == "a_scale") {
      feeds.emplace("a_scale", Floats({}, {0.031f}));
      continue;
    }
    const DType dtype = input.type.dtype;
    std::vector<int64_t> dims;
    for (const Dim& d : *input.type.shape) dims.push_back(d.size());
    feeds.emplace(input.name,
                  RandomTensor(dtype, Shape(dims), seed++, Lowest(dtype), Lowest(dtype) + 255));
  }
  return feeds;
}

void ExpectBitIdentical(const Graph& before, const Graph& after) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const std::map<std::string, Tensor> feeds = Feeds(before, seed * 10);
    const std::map<std::string, Tensor> expected = EvaluateGraph(before, feeds);
    const std::map<std::string, Tensor> actual = EvaluateGraph(after, feeds);
    ASSERT_EQ(actual.size(), expected.size());
    for (const auto& [name, tensor] : expected) {
      EXPECT_TRUE(BitwiseEqual(actual.at(name), tensor)) << name << ", seed " << seed;
    }
  }
}

std::string NodesAndConstants(const Graph& graph) {
  std::istringstream in(graph.to_string());
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("  output ", 0) != 0) out += line + "\n";
  }
  return out;
}

TEST(FuseQdqAdd, BecomesLoomQLinearAdd) {
  Graph graph = AddGraph({});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqAdd(graph));
  InferTypes(graph);
  EXPECT_EQ(graph.to_string(),
            "graph qdq\n"
            "  input a: uint8[2, 3, 5, 7]\n"
            "  input b: uint8[2, 3, 5, 7]\n"
            "  const a_scale: float32[]\n"
            "  const a_zp: uint8[]\n"
            "  const b_scale: float32[1]\n"
            "  const b_zp: uint8[]\n"
            "  const y_scale: float32[]\n"
            "  const y_zp: uint8[]\n"
            "  y = LoomQLinearAdd(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)  # add\n"
            "  output y: uint8[2, 3, 5, 7]\n");
  ExpectBitIdentical(before, graph);
  EXPECT_FALSE(FuseQdqAdd(graph));
}

TEST(FuseQdqAdd, ReluAndMixedTypesAreBitIdentical) {
  for (DType a : {DType::kUInt8, DType::kInt8}) {
    for (DType b : {DType::kUInt8, DType::kInt8}) {
      for (DType y : {DType::kUInt8, DType::kInt8}) {
        for (bool relu : {false, true}) {
          SCOPED_TRACE(std::string(dtype_name(a)) + " + " + std::string(dtype_name(b)) + " -> " +
                       std::string(dtype_name(y)) + (relu ? ", relu" : ""));
          Graph graph = AddGraph({.a_dtype = a, .b_dtype = b, .y_dtype = y, .relu = relu});
          const Graph before = graph;
          EXPECT_TRUE(FuseQdqAdd(graph));
          ASSERT_EQ(graph.nodes.size(), 1u);
          EXPECT_EQ(graph.nodes[0].op_type, "LoomQLinearAdd");
          EXPECT_EQ(graph.nodes[0].name, "add");
          EXPECT_EQ(graph.nodes[0].attributes.get_int("relu", 0), relu ? 1 : 0);
          ExpectBitIdentical(before, graph);
        }
      }
    }
  }
}

TEST(FuseQdqAdd, DequantizerWithAnotherReaderStays) {
  Graph graph = AddGraph({.relu = true, .dq_read_twice = true});
  const Graph before = graph;
  EXPECT_TRUE(FuseQdqAdd(graph));
  EXPECT_EQ(NodesAndConstants(graph),
            "graph qdq\n"
            "  input a: uint8[2, 3, 5, 7]\n"
            "  input b: uint8[2, 3, 5, 7]\n"
            "  const a_scale: float32[]\n"
            "  const a_zp: uint8[]\n"
            "  const b_scale: float32[1]\n"
            "  const b_zp: uint8[]\n"
            "  const y_scale: float32[]\n"
            "  const y_zp: uint8[]\n"
            "  a_dq = DequantizeLinear(a, a_scale, a_zp)  # a_dq\n"
            "  y = LoomQLinearAdd(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) "
            "{relu=1}  # add\n"
            "  an = Neg(a_dq)  # a_neg\n");
  verify_graph(graph);
  ExpectBitIdentical(before, graph);
}

TEST(FuseQdqAdd, PatternsThatDoNotFitStay) {
  const std::vector<AddSpec> kept = {
      {.b_dims = {1, 3, 1, 1}},  // broadcasting
      {.b_dims = {"N", 3, 5, 7}},
      {.per_axis_b = true},
      {.scale_as_input = true},
      {.add_read_twice = true},
      {.add_is_output = true},
      {.relu = true, .add_read_twice = true},
      {.relu = true, .relu_is_output = true},
      {.int16_y = true},
  };
  for (const AddSpec& spec : kept) {
    Graph graph = AddGraph(spec);
    const std::string listing = graph.to_string();
    EXPECT_FALSE(FuseQdqAdd(graph)) << listing;
    EXPECT_EQ(graph.to_string(), listing);
  }
}

// A residual step as ONNX Runtime writes it: MaxPool between a DQ and a Q,
// then the Add of its requantized output and another tensor.
TEST(FuseQdqAdd, RunsInOptimizeGraphWithSelectionElision) {
  GraphBuilder g("qdq");
  const std::string x = g.input("x", DType::kUInt8, {1, 3, 8, 8});
  const std::string r = g.input("r", DType::kUInt8, {1, 3, 4, 4});
  const std::string s1 = g.constant(Floats({}, {0.02f}), "s1");
  const std::string z1 = g.constant(ZeroPoint(DType::kUInt8, 0), "z1");
  const std::string pooled = g.op("MaxPool", {g.op("DequantizeLinear", {x, s1, z1}, {}, "x_dq")},
                                  Attributes()
                                      .set("kernel_shape", std::vector<int64_t>{2, 2})
                                      .set("strides", std::vector<int64_t>{2, 2}),
                                  "pool");
  const std::string pq = g.op("QuantizeLinear", {pooled, s1, z1}, {}, "pool_q");
  const std::string sum = g.op("Add",
                               {g.op("DequantizeLinear", {pq, s1, z1}, {}, "pool_dq"),
                                g.op("DequantizeLinear",
                                     {r, g.constant(Floats({}, {0.03f}), "s2"),
                                      g.constant(ZeroPoint(DType::kUInt8, 7), "z2")},
                                     {}, "r_dq")},
                               {}, "add");
  g.output(g.op("QuantizeLinear",
                {sum, g.constant(Floats({}, {0.04f}), "s3"),
                 g.constant(ZeroPoint(DType::kUInt8, 5), "z3")},
                {}, "add_q"),
           "y");
  Graph graph = g.build();
  InferTypes(graph);
  const Graph before = graph;
  OptimizeGraph(graph, {2, EvaluateNode});
  std::vector<std::string> nodes;
  for (const Node& node : graph.nodes) nodes.push_back(node.op_type + " " + node.name);
  EXPECT_EQ(nodes, (std::vector<std::string>{"MaxPool pool", "LoomQLinearAdd add"}));
  ExpectBitIdentical(before, graph);
}

}  // namespace
}  // namespace loom::graph
