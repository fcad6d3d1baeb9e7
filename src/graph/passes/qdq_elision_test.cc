#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
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
using testing::Int64s;

template <typename T>
Tensor Values(std::vector<int64_t> dims, std::vector<T> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}

// A one-element zero point of `dtype` holding `value`.
Tensor ZeroPoint(DType dtype, int32_t value) {
  return RandomTensor(dtype, Shape({}), 1, value, value);
}

struct SelectionSpec {
  std::string op = "MaxPool";
  DType dtype = DType::kUInt8;  // xq's, and both zero points'
  float in_scale = 0.05f;
  int32_t in_zero = 3;
  float out_scale = 0.05f;
  int32_t out_zero = 3;
  DType out_zero_dtype = DType::kUInt8;  // the Q's zero point (kUInt8: dtype)
  bool with_indices = false;             // MaxPool's second output
  bool op_read_twice = false;            // a Neg reads the op's output too
  bool op_is_output = false;             // the op's output is fetched too
  bool dq_read_twice = false;            // a Relu reads the DQ's output too
  bool scale_as_input = false;           // the Q's scale a graph input
};

const Shape kXShape({1, 4, 7, 7});

// xq → DequantizeLinear → op → QuantizeLinear → y.
Graph SelectionGraph(const SelectionSpec& spec) {
  GraphBuilder b("qdq");
  const std::string x = b.input("x", spec.dtype, {1, 4, 7, 7});
  const std::string x_scale = b.constant(Floats({}, {spec.in_scale}), "x_scale");
  const std::string x_zp = b.constant(ZeroPoint(spec.dtype, spec.in_zero), "x_zp");
  const std::string x_f = b.op("DequantizeLinear", {x, x_scale, x_zp}, {}, "x_dq");
  std::string y;
  if (spec.op == "MaxPool") {
    Attributes attrs;
    attrs.set("kernel_shape", std::vector<int64_t>{3, 3})
        .set("strides", std::vector<int64_t>{2, 2})
        .set("pads", std::vector<int64_t>{1, 1, 1, 1})
        .set("ceil_mode", int64_t{1});
    if (spec.with_indices) {
      const std::vector<std::string> outs = b.op_multi("MaxPool", {x_f}, 2, attrs, "op");
      y = outs[0];
      b.output(outs[1], "indices");
    } else {
      y = b.op("MaxPool", {x_f}, attrs, "op");
    }
  } else if (spec.op == "Reshape") {
    y = b.op("Reshape", {x_f, b.constant(Int64s({2}, {4, -1}), "shape")}, {}, "op");
  } else if (spec.op == "Flatten") {
    y = b.op("Flatten", {x_f}, Attributes().set("axis", int64_t{2}), "op");
  } else if (spec.op == "Transpose") {
    y = b.op("Transpose", {x_f}, Attributes().set("perm", std::vector<int64_t>{0, 2, 3, 1}), "op");
  } else if (spec.op == "Squeeze") {
    y = b.op("Squeeze", {x_f, b.constant(Int64s({1}, {0}), "axes")}, {}, "op");
  } else {
    y = b.op("Unsqueeze", {x_f, b.constant(Int64s({1}, {2}), "axes")}, {}, "op");
  }
  const std::string y_scale = spec.scale_as_input
                                  ? b.input("y_scale", DType::kFloat32, {})
                                  : b.constant(Floats({}, {spec.out_scale}), "y_scale");
  const DType out_zero_dtype =
      spec.out_zero_dtype == DType::kUInt8 ? spec.dtype : spec.out_zero_dtype;
  const std::string y_zp = b.constant(ZeroPoint(out_zero_dtype, spec.out_zero), "y_zp");
  b.output(b.op("QuantizeLinear", {y, y_scale, y_zp}, {}, "y_q"), "y");
  if (spec.op_read_twice) b.output(b.op("Neg", {y}, {}, "neg"), "n");
  if (spec.op_is_output) b.output(y);
  if (spec.dq_read_twice) b.output(b.op("Relu", {x_f}, {}, "relu"), "r");
  Graph graph = b.build();
  InferTypes(graph);
  return graph;
}

// Every value of xq's dtype appears (the shape holds 196 elements).
std::map<std::string, Tensor> Feeds(const Graph& graph, DType dtype, uint32_t seed) {
  std::map<std::string, Tensor> feeds;
  const int32_t lo = dtype == DType::kInt8 ? -128 : 0;
  feeds.emplace("x", RandomTensor(dtype, kXShape, seed, lo, lo + 255));
  for (const ValueInfo& input : graph.inputs) {
    if (input.name == "y_scale") feeds.emplace("y_scale", Floats({}, {0.05f}));
  }
  return feeds;
}

// The elided graph's outputs are the float path's, bit for bit.
void ExpectBitIdentical(const Graph& before, const Graph& after, DType dtype) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const std::map<std::string, Tensor> feeds = Feeds(before, dtype, seed);
    const std::map<std::string, Tensor> expected = EvaluateGraph(before, feeds);
    const std::map<std::string, Tensor> actual = EvaluateGraph(after, feeds);
    ASSERT_EQ(actual.size(), expected.size());
    for (const auto& [name, tensor] : expected) {
      EXPECT_TRUE(BitwiseEqual(actual.at(name), tensor)) << name << ", seed " << seed;
    }
  }
}

// The listing without its output lines, whose types type inference fills.
std::string NodesAndConstants(const Graph& graph) {
  std::istringstream in(graph.to_string());
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("  output ", 0) != 0) out += line + "\n";
  }
  return out;
}

TEST(DropQdqAroundSelection, MaxPoolRunsOnTheQuantizedValues) {
  for (DType dtype : {DType::kUInt8, DType::kInt8}) {
    Graph graph = SelectionGraph({.dtype = dtype});
    const Graph before = graph;
    EXPECT_TRUE(DropQdqAroundSelection(graph));
    InferTypes(graph);
    const std::string t(dtype_name(dtype));
    EXPECT_EQ(graph.to_string(),
              "graph qdq\n"
              "  input x: " +
                  t +
                  "[1, 4, 7, 7]\n"
                  "  y = MaxPool(x) {ceil_mode=1, kernel_shape=[3, 3], pads=[1, 1, 1, 1], "
                  "strides=[2, 2]}  # op\n"
                  "  output y: " +
                  t + "[1, 4, 4, 4]\n");
    ExpectBitIdentical(before, graph, dtype);
    EXPECT_FALSE(DropQdqAroundSelection(graph));
  }
}

TEST(DropQdqAroundSelection, DataMovementOpsRunOnTheQuantizedValues) {
  const std::map<std::string, std::string> expected = {
      {"Reshape", "  const shape: int64[2]\n  y = Reshape(x, shape)  # op\n"},
      {"Flatten", "  y = Flatten(x) {axis=2}  # op\n"},
      {"Transpose", "  y = Transpose(x) {perm=[0, 2, 3, 1]}  # op\n"},
      {"Squeeze", "  const axes: int64[1]\n  y = Squeeze(x, axes)  # op\n"},
      {"Unsqueeze", "  const axes: int64[1]\n  y = Unsqueeze(x, axes)  # op\n"},
  };
  for (const auto& [op, body] : expected) {
    SCOPED_TRACE(op);
    Graph graph = SelectionGraph({.op = op, .dtype = DType::kInt8, .in_zero = -5, .out_zero = -5});
    const Graph before = graph;
    EXPECT_TRUE(DropQdqAroundSelection(graph));
    EXPECT_EQ(NodesAndConstants(graph), "graph qdq\n  input x: int8[1, 4, 7, 7]\n" + body);
    InferTypes(graph);
    EXPECT_EQ(graph.outputs[0].type.dtype, DType::kInt8);
    ExpectBitIdentical(before, graph, DType::kInt8);
  }
}

TEST(DropQdqAroundSelection, DequantizerWithAnotherReaderStays) {
  Graph graph = SelectionGraph({.dq_read_twice = true});
  const Graph before = graph;
  EXPECT_TRUE(DropQdqAroundSelection(graph));
  EXPECT_EQ(NodesAndConstants(graph),
            "graph qdq\n"
            "  input x: uint8[1, 4, 7, 7]\n"
            "  const x_scale: float32[]\n"
            "  const x_zp: uint8[]\n"
            "  x_dq = DequantizeLinear(x, x_scale, x_zp)  # x_dq\n"
            "  y = MaxPool(x) {ceil_mode=1, kernel_shape=[3, 3], pads=[1, 1, 1, 1], "
            "strides=[2, 2]}  # op\n"
            "  r = Relu(x_dq)  # relu\n");
  verify_graph(graph);
  ExpectBitIdentical(before, graph, DType::kUInt8);
}

TEST(DropQdqAroundSelection, PatternsThatDoNotFitStay) {
  const std::vector<SelectionSpec> kept = {
      {.out_scale = 0.0501f},
      {.out_zero = 4},
      {.out_zero_dtype = DType::kInt8},
      {.with_indices = true},
      {.op_read_twice = true},
      {.op_is_output = true},
      {.scale_as_input = true},
      {.in_scale = -0.05f, .out_scale = -0.05f},  // DQ decreasing: max becomes min
      {.in_scale = 0.0f, .out_scale = 0.0f},
      {.in_scale = FLT_MIN / 2, .out_scale = FLT_MIN / 2},  // subnormal
      {.in_scale = FLT_MAX, .out_scale = FLT_MAX},          // (v - z) * s overflows
  };
  for (const SelectionSpec& spec : kept) {
    Graph graph = SelectionGraph(spec);
    const std::string listing = graph.to_string();
    EXPECT_FALSE(DropQdqAroundSelection(graph)) << listing;
    EXPECT_EQ(graph.to_string(), listing);
  }
}

// The file comment's claim: Q(DQ(v)) = v for every 8-bit v and zero point
// at any scale the pass accepts, through the two kernels.
TEST(DropQdqAroundSelection, RoundTripThroughTheKernelsIsExact) {
  std::vector<float> scales = {FLT_MIN, FLT_MAX / 256, 1.0f, 1e-30f, 1e30f, 0.1f, 3.0f};
  uint32_t state = 12345;
  for (int i = 0; i < 200; ++i) {
    state = state * 1664525u + 1013904223u;  // an LCG: reproducible scales
    const float unit = static_cast<float>(state >> 8) / 16777216.0f;
    scales.push_back(std::exp2(-40.0f + 60.0f * unit) * (1.0f + unit));
  }
  for (DType dtype : {DType::kUInt8, DType::kInt8}) {
    const int32_t lo = dtype == DType::kInt8 ? -128 : 0;
    Tensor all(dtype, Shape({256}));
    for (int32_t v = 0; v < 256; ++v) {
      if (dtype == DType::kInt8) {
        all.data<int8_t>()[v] = static_cast<int8_t>(lo + v);
      } else {
        all.data<uint8_t>()[v] = static_cast<uint8_t>(v);
      }
    }
    for (int32_t zero : {lo, lo + 1, lo + 128, lo + 255}) {
      const Tensor zp = ZeroPoint(dtype, zero);
      for (float scale : scales) {
        const Tensor s = Floats({}, {scale});
        Node dq{"dq", "DequantizeLinear", {"x", "s", "z"}, {"f"}, {}};
        Node q{"q", "QuantizeLinear", {"f", "s", "z"}, {"y"}, {}};
        const std::vector<Tensor> f = EvaluateNode(dq, {&all, &s, &zp});
        const std::vector<Tensor> y = EvaluateNode(q, {&f[0], &s, &zp});
        EXPECT_TRUE(BitwiseEqual(y[0], all))
            << dtype_name(dtype) << ", zero point " << zero << ", scale " << scale;
      }
    }
  }
}

TEST(DropQdqAroundSelection, RunsInOptimizeGraphAtLevelTwo) {
  Graph graph = SelectionGraph({});
  const Graph before = graph;
  OptimizeGraph(graph, {2, EvaluateNode});
  ASSERT_EQ(graph.nodes.size(), 1u);
  EXPECT_EQ(graph.nodes[0].op_type, "MaxPool");
  ExpectBitIdentical(before, graph, DType::kUInt8);
}

}  // namespace
}  // namespace loom::graph
