// Elementwise rules: broadcasting with symbolic dims, output dtypes, errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::kBool;
using testing::kF32;
using testing::kI32;
using testing::kI64;
using testing::OutputType;

// The type of Add(a, b) for inputs of these shapes (float32).
std::string AddType(const SymbolicShape& a, const SymbolicShape& b) {
  GraphBuilder builder;
  const std::string x = builder.input("a", kF32, a);
  const std::string y = builder.input("b", kF32, b);
  return OutputType(builder, builder.op("Add", {x, y}));
}

TEST(BroadcastRule, KnownShapes) {
  EXPECT_EQ(AddType({2, 3, 4}, {4}), "float32[2, 3, 4]");
  EXPECT_EQ(AddType({2, 1, 4}, {3, 1}), "float32[2, 3, 4]");
  EXPECT_EQ(AddType({}, {5}), "float32[5]");
  EXPECT_EQ(AddType({1}, {0}), "float32[0]");
}

TEST(BroadcastRule, EqualSymbolsStay) { EXPECT_EQ(AddType({"N", 3}, {"N", 3}), "float32[N, 3]"); }

TEST(BroadcastRule, KnownOneYieldsToSymbol) {
  EXPECT_EQ(AddType({"N", 3}, {1, 3}), "float32[N, 3]");
  EXPECT_EQ(AddType({1}, {"N"}), "float32[N]");
  EXPECT_EQ(AddType({"N"}, {}), "float32[N]");
}

TEST(BroadcastRule, SymbolMeetingKnownSizeTakesTheSize) {
  // N must be 5 or 1 at run time; either way the result has 5.
  EXPECT_EQ(AddType({"N", 3}, {5, 3}), "float32[5, 3]");
  EXPECT_EQ(AddType({0}, {"N"}), "float32[0]");
}

TEST(BroadcastRule, DifferentSymbolsGiveAnUnknownDim) {
  // Either of N and M may be 1, so the result is neither.
  EXPECT_EQ(AddType({"N", 3}, {"M", 3}), "float32[?, 3]");
}

TEST(BroadcastRule, ClashNamesBothInputsAndTheAxis) {
  GraphBuilder b("g");
  const std::string x = b.input("a", kF32, {2, 3});
  const std::string y = b.input("b", kF32, {4});
  EXPECT_EQ(BuildErrorOf(b, b.op("Add", {x, y}, {}, "add_3")),
            "graph 'g': node 'add_3' (Add): inputs 'a' float32[2, 3] and 'b' float32[4] do not "
            "broadcast (axis 1: 3 vs 4)");
}

TEST(BroadcastRule, UnknownRankGivesUnknownShape) {
  Graph g;
  g.inputs = {{"a", TensorType{kF32, std::nullopt}}, {"b", TensorType{kF32, SymbolicShape{3}}}};
  g.nodes = {Node{"mul", "Mul", {"a", "b"}, {"y"}, {}}};
  g.outputs = {{"y", {}}};
  InferTypes(g);
  EXPECT_EQ(g.value_types.at("y"), (TensorType{kF32, std::nullopt}));
}

TEST(BroadcastRule, ClashAmongKnownShapesIsFoundDespiteAnUnknownRank) {
  Graph g;
  g.inputs = {{"a", TensorType{kF32, SymbolicShape{2}}},
              {"b", TensorType{kF32, std::nullopt}},
              {"c", TensorType{kF32, SymbolicShape{3}}}};
  g.nodes = {Node{"sum", "Sum", {"a", "b", "c"}, {"y"}, {}}};
  g.outputs = {{"y", {}}};
  EXPECT_THROW(InferTypes(g), InvalidArgumentError);
}

TEST(VariadicRule, BroadcastsEveryInput) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {2, 1});
  const std::string y = b.input("y", kF32, {1, 3});
  const std::string z = b.input("z", kF32, {5, 1, 1});
  EXPECT_EQ(OutputType(b, b.op("Sum", {x, y, z})), "float32[5, 2, 3]");
}

TEST(VariadicRule, ClashNamesTheInputThatFixedTheSize) {
  GraphBuilder b("g");
  const std::string x = b.input("a", kF32, {2, 3});
  const std::string y = b.input("b", kF32, {1, 3});
  const std::string z = b.input("c", kF32, {4, 3});
  EXPECT_EQ(BuildErrorOf(b, b.op("Max", {x, y, z}, {}, "max")),
            "graph 'g': node 'max' (Max): inputs 'a' float32[2, 3] and 'c' float32[4, 3] do not "
            "broadcast (axis 0: 2 vs 4)");
}

TEST(VariadicRule, DTypesMustAgree) {
  GraphBuilder b("g");
  const std::string x = b.input("a", kF32, {2});
  const std::string y = b.input("b", kF32, {2});
  const std::string z = b.input("c", kI32, {2});
  EXPECT_EQ(BuildErrorOf(b, b.op("Min", {x, y, z}, {}, "min")),
            "graph 'g': node 'min' (Min): inputs 'a' float32[2] and 'c' int32[2] must have the "
            "same dtype");
}

TEST(UnaryRule, KeepsDTypeAndShape) {
  GraphBuilder b;
  const std::string x = b.input("x", kI64, {"N", 3});
  const std::string m = b.input("m", kBool, {4});
  const std::string f = b.input("f", kF32, {"N", 3});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("Abs", {x}), b.op("Identity", {x}), b.op("Not", {m}),
                                     b.op("Gelu", {f}), b.op("LeakyRelu", {f})}),
            (std::vector<std::string>{"int64[N, 3]", "int64[N, 3]", "bool[4]", "float32[N, 3]",
                                      "float32[N, 3]"}));
}

TEST(ComparisonRule, GivesBool) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 1});
  const std::string y = b.input("y", kF32, {4});
  const std::string p = b.input("p", kBool, {4});
  const std::string less = b.op("Less", {x, y});
  EXPECT_EQ(testing::OutputTypes(b, {less, b.op("Equal", {p, p}), b.op("Xor", {less, p})}),
            (std::vector<std::string>{"bool[N, 4]", "bool[4]", "bool[N, 4]"}));
}

TEST(ComparisonRule, LogicOpsNeedBool) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kI32, {2});
  const std::string message = BuildErrorOf(b, b.op("And", {x, x}, {}, "and"));
  EXPECT_EQ(message,
            "graph 'g': node 'and' (And): input 'x' int32[2] has dtype int32, which the kernel "
            "does not support (supported: bool)");
}

TEST(WhereRule, BroadcastsAllThreeWithTheDTypeOfX) {
  GraphBuilder b;
  const std::string c = b.input("c", kBool, {"N", 1});
  const std::string x = b.input("x", kI64, {1, 4});
  const std::string y = b.input("y", kI64, {});
  EXPECT_EQ(OutputType(b, b.op("Where", {c, x, y})), "int64[N, 4]");
}

TEST(WhereRule, ConditionMustBeBoolAndBranchesAgree) {
  {
    GraphBuilder b("g");
    const std::string c = b.input("c", kF32, {2});
    const std::string x = b.input("x", kF32, {2});
    EXPECT_EQ(BuildErrorOf(b, b.op("Where", {c, x, x}, {}, "w")),
              "graph 'g': node 'w' (Where): input 'c' float32[2] must have dtype bool");
  }
  GraphBuilder b("g");
  const std::string c = b.input("c", kBool, {2});
  const std::string x = b.input("x", kF32, {2});
  const std::string y = b.input("y", kI64, {2});
  EXPECT_EQ(BuildErrorOf(b, b.op("Where", {c, x, y}, {}, "w")),
            "graph 'g': node 'w' (Where): inputs 'x' float32[2] and 'y' int64[2] must have the "
            "same dtype");
}

TEST(CastRule, TakesTheDTypeOfAttributeTo) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 2});
  EXPECT_EQ(testing::OutputTypes(b, {b.op("Cast", {x}, {{"to", int64_t{7}}}),
                                     b.op("Cast", {x}, {{"to", int64_t{9}}}),
                                     b.op("Cast", {x}, {{"to", int64_t{10}}})}),
            (std::vector<std::string>{"int64[N, 2]", "bool[N, 2]", "float16[N, 2]"}));
}

TEST(CastRule, ToEachNewDType) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {3});
  EXPECT_EQ(
      testing::OutputTypes(
          b, {b.op("Cast", {x}, {{"to", int64_t{4}}}), b.op("Cast", {x}, {{"to", int64_t{5}}}),
              b.op("Cast", {x}, {{"to", int64_t{12}}}), b.op("Cast", {x}, {{"to", int64_t{13}}}),
              b.op("Cast", {x}, {{"to", int64_t{16}}})}),
      (std::vector<std::string>{"uint16[3]", "int16[3]", "uint32[3]", "uint64[3]", "bfloat16[3]"}));
}

// The kernel registry's dtypes decide which input dtypes an op takes: the
// new types where ONNX allows them, a clear error where it does not.
TEST(KernelDTypes, NewTypesFollowTheRegistry) {
  for (DType dtype :
       {DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kInt16, DType::kBFloat16}) {
    GraphBuilder b;
    const std::string x = b.input("x", dtype, {2});
    const std::string name(dtype_name(dtype));
    EXPECT_EQ(testing::OutputTypes(
                  b, {b.op("Add", {x, x}), b.op("Less", {x, x}), b.op("Abs", {x}),
                      b.op("Max", {x, x, x}), b.op("Transpose", {x}), b.op("Identity", {x})}),
              (std::vector<std::string>{name + "[2]", "bool[2]", name + "[2]", name + "[2]",
                                        name + "[2]", name + "[2]"}))
        << name;
  }
  GraphBuilder neg("g");
  const std::string u = neg.input("u", DType::kUInt32, {2});
  EXPECT_EQ(BuildErrorOf(neg, neg.op("Neg", {u}, {}, "n")),
            "graph 'g': node 'n' (Neg): input 'u' uint32[2] has dtype uint32, which the kernel "
            "does not support (supported: float32, float64, float16, int8, int32, int64, int16, "
            "bfloat16)");
  GraphBuilder sum("g");
  const std::string s = sum.input("s", DType::kInt16, {2});
  EXPECT_NE(BuildErrorOf(sum, sum.op("ReduceSum", {s}, {}, "r"))
                .find("has dtype int16, which the kernel does not support"),
            std::string::npos);
}

TEST(CastRule, UnsupportedOrMissingTargetThrows) {
  {
    GraphBuilder b("g");
    const std::string message =
        BuildErrorOf(b, b.op("Cast", {b.input("x", kF32, {2})}, {{"to", int64_t{14}}}, "c"));
    EXPECT_EQ(message.rfind("graph 'g': node 'c' (Cast): attribute 'to' = 14 is not a dtype", 0),
              0u)
        << message;
  }
  GraphBuilder b("g");
  EXPECT_EQ(BuildErrorOf(b, b.op("Cast", {b.input("x", kF32, {2})}, {}, "c")),
            "graph 'g': node 'c' (Cast): required attribute 'to' is missing");
}

TEST(CastRule, AttributeOfTheWrongKindThrows) {
  GraphBuilder b("g");
  EXPECT_EQ(BuildErrorOf(b, b.op("Cast", {b.input("x", kF32, {2})}, {{"to", 7.0f}}, "c")),
            "graph 'g': node 'c' (Cast): attribute 'to' must be of kind int (got float)");
}

TEST(PowRule, ExponentMayHaveAnotherNumericDType) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {3, 1});
  const std::string y = b.input("y", kI64, {4});
  EXPECT_EQ(OutputType(b, b.op("Pow", {x, y})), "float32[3, 4]");
  GraphBuilder c;
  const std::string base = c.input("base", DType::kBFloat16, {2});
  const std::string exponent = c.input("e", DType::kUInt64, {2});
  EXPECT_EQ(OutputType(c, c.op("Pow", {base, exponent})), "bfloat16[2]");
}

TEST(ModRule, FloatInputsNeedFmod) {
  GraphBuilder ok;
  const std::string x = ok.input("x", kF32, {2});
  EXPECT_EQ(OutputType(ok, ok.op("Mod", {x, x}, {{"fmod", int64_t{1}}})), "float32[2]");
  GraphBuilder b("g");
  const std::string y = b.input("y", kF32, {2});
  EXPECT_EQ(BuildErrorOf(b, b.op("Mod", {y, y}, {}, "mod")),
            "graph 'g': node 'mod' (Mod): input 'y' float32[2] is floating point, which requires "
            "attribute fmod = 1");
  GraphBuilder h("g");
  const std::string z = h.input("z", DType::kBFloat16, {2});
  EXPECT_NE(BuildErrorOf(h, h.op("Mod", {z, z}, {}, "mod")).find("requires attribute fmod = 1"),
            std::string::npos);
}

TEST(ClipRule, BoundsShareTheInputDType) {
  GraphBuilder ok;
  const std::string x = ok.input("x", kF32, {"N"});
  const std::string hi = ok.constant(Tensor(kF32, Shape()), "hi");
  EXPECT_EQ(OutputType(ok, ok.op("Clip", {x, "", hi})), "float32[N]");
  GraphBuilder b("g");
  const std::string y = b.input("y", kF32, {2});
  const std::string lo = b.constant(Tensor(kI64, Shape()), "lo");
  EXPECT_EQ(BuildErrorOf(b, b.op("Clip", {y, lo}, {}, "clip")),
            "graph 'g': node 'clip' (Clip): inputs 'y' float32[2] and 'lo' int64[] must have the "
            "same dtype");
}

}  // namespace
}  // namespace loom::graph
