// InferTypes as a whole: the walk, the rule table, graph outputs, the
// registry's dtype check, and a symbolic batch through a small CNN.
#include "graph/type_inference.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"
#include "graph/type_rules.h"
#include "kernels/registry.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::Ints;
using testing::kBool;
using testing::kF32;
using testing::kF64;
using testing::kI32;
using testing::kI64;
using testing::OutputType;
using testing::OutputTypes;
using testing::Render;

TEST(TypeRuleTable, IsSortedWithoutDuplicates) {
  const std::span<const TypeRule> rules = TypeRules();
  for (size_t i = 1; i < rules.size(); ++i) {
    EXPECT_LT(rules[i - 1].op, rules[i].op) << "at " << rules[i].op;
  }
}

TEST(TypeRuleTable, CoversEveryRegisteredKernel) {
  for (const kernels::KernelRegistration& kernel : kernels::KernelRegistry()) {
    const TypeRule* rule = FindTypeRule(kernel.op);
    ASSERT_NE(rule, nullptr) << "no type rule for " << kernel.op;
    EXPECT_EQ(rule->op, kernel.op);
  }
  EXPECT_EQ(FindTypeRule("NoSuchOp"), nullptr);
}

TEST(InferTypes, FillsEveryNodeOutputAndGraphOutput) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {2, 3});
  const std::string bias = b.constant(Tensor(kF32, Shape({3})), "bias");
  const std::string relu = b.op("Relu", {x}, {}, "relu");
  const std::string sum = b.op("Add", {relu, bias}, {}, "add");
  b.output(sum, "y");
  Graph g = b.build();
  InferTypes(g);
  ASSERT_EQ(g.value_types.size(), 2u);
  EXPECT_EQ(g.value_types.at("relu"), (TensorType{kF32, SymbolicShape{2, 3}}));
  EXPECT_EQ(g.value_types.at("y"), (TensorType{kF32, SymbolicShape{2, 3}}));
  EXPECT_EQ(g.outputs[0].type, (TensorType{kF32, SymbolicShape{2, 3}}));
}

TEST(InferTypes, GraphOutputThatIsAnInputOrInitializerGetsItsType) {
  GraphBuilder b;
  b.input("ids", kI64, {"N", 4});
  b.constant(Tensor(kI32, Shape({5})), "table");
  b.output("ids");
  b.output("table");
  Graph g = b.build();
  InferTypes(g);
  EXPECT_EQ(g.outputs[0].type, (TensorType{kI64, SymbolicShape{"N", 4}}));
  EXPECT_EQ(g.outputs[1].type, (TensorType{kI32, SymbolicShape{5}}));
  EXPECT_TRUE(g.value_types.empty());  // no node outputs
}

TEST(InferTypes, ReplacesStaleValueTypes) {
  GraphBuilder b;
  b.output(b.op("Relu", {b.input("x", kF32, {4})}, {}, "r"));
  Graph g = b.build();
  g.value_types["gone"] = TensorType{kI64, SymbolicShape{1}};
  InferTypes(g);
  EXPECT_EQ(g.value_types.count("gone"), 0u);
  EXPECT_EQ(g.value_types.count("r"), 1u);
}

// ---- declared graph output types ----

Graph ReluGraph() {
  GraphBuilder b("g");
  b.output(b.op("Relu", {b.input("x", kF32, {"N", 3})}, {}, "r"));
  return b.build();
}

TEST(InferTypes, DeclaredOutputWithoutShapeIsOnlyAPlaceholder) {
  Graph g = ReluGraph();
  g.outputs[0].type = TensorType{kI64, std::nullopt};  // a guess, not a promise
  InferTypes(g);
  EXPECT_EQ(g.outputs[0].type, (TensorType{kF32, SymbolicShape{"N", 3}}));
}

TEST(InferTypes, DeclaredOutputFillsDimsInferenceLeavesUnknown) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {"N", "M"});
  const std::string y = b.input("y", kF32, {"K", "M"});
  b.output(b.op("Add", {x, y}, {}, "sum"));  // N vs K: unknown
  Graph g = b.build();
  g.outputs[0].type = TensorType{kF32, SymbolicShape{"B", 7}};
  InferTypes(g);
  // Axis 0: the declared symbol replaces the unknown; axis 1: known 7 beats M.
  EXPECT_EQ(g.outputs[0].type, (TensorType{kF32, SymbolicShape{"B", 7}}));
}

TEST(InferTypes, DeclaredOutputSymbolYieldsToInferredSize) {
  GraphBuilder b("g");
  b.output(b.op("Relu", {b.input("x", kF32, {2, 3})}, {}, "r"));
  Graph g = b.build();
  g.outputs[0].type = TensorType{kF32, SymbolicShape{"batch", 3}};
  InferTypes(g);
  EXPECT_EQ(g.outputs[0].type, (TensorType{kF32, SymbolicShape{2, 3}}));
}

std::string InferErrorOf(Graph g) {
  try {
    InferTypes(g);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

TEST(InferTypes, DeclaredOutputContradictingInferenceThrows) {
  Graph g = ReluGraph();
  g.outputs[0].type = TensorType{kF32, SymbolicShape{"N", 4}};
  EXPECT_EQ(InferErrorOf(g),
            "graph 'g': graph output 'r' is declared as float32[N, 4] but inferred as "
            "float32[N, 3]");
  g.outputs[0].type = TensorType{kF64, SymbolicShape{"N", 3}};
  EXPECT_EQ(InferErrorOf(g),
            "graph 'g': graph output 'r' is declared as float64[N, 3] but inferred as "
            "float32[N, 3]");
  g.outputs[0].type = TensorType{kF32, SymbolicShape{"N", 3, 1}};
  EXPECT_EQ(InferErrorOf(g),
            "graph 'g': graph output 'r' is declared as float32[N, 3, 1] but inferred as "
            "float32[N, 3]");
}

// ---- dtype checks ----

TEST(InferTypes, DTypeTheKernelDoesNotSupportThrows) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kI32, {4});
  EXPECT_EQ(BuildErrorOf(b, b.op("Sigmoid", {x}, {}, "sig")),
            "graph 'g': node 'sig' (Sigmoid): input 'x' int32[4] has dtype int32, which the "
            "kernel does not support (supported: float32, float64, float16, bfloat16)");
}

TEST(InferTypes, ConvInFloat64Throws) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF64, {1, 1, 4, 4});
  const std::string w = b.constant(Tensor(kF64, Shape({1, 1, 3, 3})), "w");
  const std::string message = BuildErrorOf(b, b.op("Conv", {x, w}, {}, "conv"));
  EXPECT_NE(message.find("node 'conv' (Conv): input 'x' float64[1, 1, 4, 4] has dtype float64"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(supported: float32)"), std::string::npos) << message;
}

TEST(InferTypes, AddOfFloat32AndInt64Throws) {
  GraphBuilder b("g");
  const std::string x = b.input("a", kF32, {2, 3});
  const std::string y = b.input("b", kI64, {3});
  EXPECT_EQ(BuildErrorOf(b, b.op("Add", {x, y}, {}, "add")),
            "graph 'g': node 'add' (Add): inputs 'a' float32[2, 3] and 'b' int64[3] must have "
            "the same dtype");
}

TEST(InferTypes, MatMulOfFloat32AndFloat64Throws) {
  GraphBuilder b("g");
  const std::string x = b.input("a", kF32, {2, 3});
  const std::string y = b.input("b", kF64, {3, 4});
  EXPECT_EQ(BuildErrorOf(b, b.op("MatMul", {x, y}, {}, "mm")),
            "graph 'g': node 'mm' (MatMul): inputs 'a' float32[2, 3] and 'b' float64[3, 4] "
            "must have the same dtype");
}

TEST(InferTypes, TooManyOutputsThrows) {
  GraphBuilder b("g");
  const std::vector<std::string> outs = b.op_multi("Relu", {b.input("x", kF32, {2})}, 2, {}, "r");
  EXPECT_EQ(BuildErrorOf(b, outs[0]),
            "graph 'g': node 'r' (Relu): has 2 outputs, but Relu produces 1");
}

TEST(InferTypes, MissingRequiredInputThrows) {
  GraphBuilder b("g");
  EXPECT_EQ(BuildErrorOf(b, b.op("Add", {b.input("x", kF32, {2}), ""}, {}, "add")),
            "graph 'g': node 'add' (Add): input 1 is required but absent");
}

TEST(InferTypes, NegativeInputDimThrows) {
  GraphBuilder b("g");
  b.output(b.op("Relu", {b.input("x", kF32, {-1, 3})}));
  EXPECT_EQ(BuildErrorOf(b, "x"),
            "graph 'g': graph input 'x' has a negative dimension (float32[-1, 3]); an unknown "
            "size needs a symbol");
}

TEST(InferTypes, VariadicOpWithoutInputsThrows) {
  GraphBuilder b("g");
  b.input("x", kF32, {1});
  EXPECT_EQ(BuildErrorOf(b, b.op("Sum", {}, {}, "sum")),
            "graph 'g': node 'sum' (Sum): expected at least 1 input (got 0)");
}

// ---- graphs verify_graph would reject, typed directly ----

TEST(InferTypes, OpWithoutRuleKeepsFirstInputDTypeAndUnknownShape) {
  Graph g;
  g.inputs = {{"x", TensorType{kI32, SymbolicShape{3}}}};
  g.nodes = {Node{"f", "NotAnOp", {"", "x"}, {"y", "z"}, {}}};
  g.outputs = {{"z", {}}};
  InferTypes(g);
  EXPECT_EQ(g.value_types.at("y"), (TensorType{kI32, std::nullopt}));
  EXPECT_EQ(g.outputs[0].type, (TensorType{kI32, std::nullopt}));
}

TEST(InferTypes, CycleThrows) {
  Graph g;
  g.name = "loop";
  g.nodes = {Node{"a", "Relu", {"b_out"}, {"a_out"}, {}},
             Node{"b", "Relu", {"a_out"}, {"b_out"}, {}}};
  g.outputs = {{"a_out", {}}};
  EXPECT_EQ(InferErrorOf(g),
            "graph 'loop': cannot infer types: node 'a' (Relu) lies on or after a cycle");
}

// ---- constants ----

TEST(InferTypes, ConstantNodeFeedsAReshapeShape) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 4});
  const std::string shape = b.op("Constant", {}, {{"value_ints", std::vector<int64_t>{0, -1}}});
  EXPECT_EQ(OutputType(b, b.op("Reshape", {x, shape})), "float32[N, 12]");
}

TEST(InferTypes, InitializerThatIsAlsoAGraphInputIsNotConstant) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {2, 6});
  const std::string shape = b.input("shape", kI64, {2});
  b.constant(Ints({3, 4}), "shape");  // only a default: callers may feed another shape
  EXPECT_EQ(OutputType(b, b.op("Reshape", {x, shape})), "float32[?, ?]");
}

TEST(InferTypes, DataDependentShapeStaysUnknown) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 6});
  const std::string shape = b.op("Shape", {x});
  // The Shape output's values are known only at run time; its length is 2.
  EXPECT_EQ(OutputType(b, b.op("Reshape", {x, shape})), "float32[?, ?]");
}

TEST(InferTypes, UnknownShapePropagatesWithDType) {
  Graph g;
  g.inputs = {{"x", TensorType{kF32, std::nullopt}}, {"m", TensorType{kBool, SymbolicShape{4}}}};
  g.nodes = {Node{"r", "Relu", {"x"}, {"r"}, {}}, Node{"lt", "Less", {"r", "r"}, {"lt"}, {}},
             Node{"and", "And", {"lt", "m"}, {"and"}, {}}};
  g.outputs = {{"and", {}}};
  InferTypes(g);
  EXPECT_EQ(g.value_types.at("r"), (TensorType{kF32, std::nullopt}));
  EXPECT_EQ(g.value_types.at("and"), (TensorType{kBool, std::nullopt}));
}

// ---- a symbolic batch through a small CNN ----

TEST(InferTypes, SymbolicBatchThroughConvReluPoolFlattenGemm) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 32, 32});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 3, 3, 3})), "w");
  const std::string conv =
      b.op("Conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
  const std::string relu = b.op("Relu", {conv}, {}, "relu");
  const std::string pool =
      b.op("MaxPool", {relu},
           {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}},
           "pool");
  const std::string flat = b.op("Flatten", {pool}, {}, "flat");
  const std::string fc_w = b.constant(Tensor(kF32, Shape({10, 2048})), "fc_w");
  const std::string fc_b = b.constant(Tensor(kF32, Shape({10})), "fc_b");
  const std::string logits = b.op("Gemm", {flat, fc_w, fc_b}, {{"transB", int64_t{1}}}, "fc");
  // [N, 3, 32, 32] -> conv (pads 1) [N, 8, 32, 32] -> pool /2 [N, 8, 16, 16]
  // -> flatten [N, 8*16*16 = 2048] -> gemm [N, 10].
  EXPECT_EQ(
      OutputTypes(b, {conv, relu, pool, flat, logits}),
      (std::vector<std::string>{"float32[N, 8, 32, 32]", "float32[N, 8, 32, 32]",
                                "float32[N, 8, 16, 16]", "float32[N, 2048]", "float32[N, 10]"}));
}

TEST(InferTypes, SymbolicImageSizeLeavesFlattenWidthUnknown) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, "H", "W"});
  const std::string w = b.constant(Tensor(kF32, Shape({8, 3, 3, 3})), "w");
  const std::string conv = b.op("Conv", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const std::string flat = b.op("Flatten", {conv});
  EXPECT_EQ(OutputTypes(b, {conv, flat}),
            (std::vector<std::string>{"float32[N, 8, ?, ?]", "float32[N, ?]"}));
}

TEST(InferTypes, UnknownDimsAreFreshPerNodeAndMatchNothing) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"A"});
  const std::string y = b.input("y", kF32, {"B"});
  const std::string s1 = b.op("Add", {x, y}, {}, "s1");
  const std::string s2 = b.op("Add", {x, y}, {}, "s2");
  for (const std::string& v : {s1, s2}) b.output(v);
  Graph g = b.build();
  InferTypes(g);
  const Dim d1 = (*g.value_types.at(s1).shape)[0];
  const Dim d2 = (*g.value_types.at(s2).shape)[0];
  EXPECT_TRUE(IsUnknownDim(d1));
  EXPECT_TRUE(IsUnknownDim(d2));
  EXPECT_TRUE(d1.is_invented());  // the Python API shows it as None
  EXPECT_FALSE(Dim("N").is_invented());
  EXPECT_FALSE(d1 == d2);
  EXPECT_FALSE(IsUnknownDim(Dim("N")));
  EXPECT_FALSE(IsUnknownDim(Dim(3)));
  EXPECT_EQ(Render(g.value_types.at(s1)), "float32[?]");
}

}  // namespace
}  // namespace loom::graph
