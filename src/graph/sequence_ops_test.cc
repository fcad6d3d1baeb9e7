// Type inference of the sequence and optional ops (sequence_ops.h) on graphs
// built in code; the expected types follow from the ONNX definitions,
// worked out by hand.
#include "graph/sequence_ops.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::kBool;
using testing::kF32;
using testing::kI64;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// "seq(float32[2, ?])": the value's type with unknown dims as "?".
std::string Show(const TensorType& type) {
  std::string tensor = testing::Render(type);
  if (!type.shape) tensor = std::string(dtype_name(type.dtype)) + "[?]";
  switch (type.kind) {
    case ValueKind::kTensor:
      return tensor;
    case ValueKind::kSequence:
      return "seq(" + tensor + ")";
    case ValueKind::kOptionalTensor:
      return "optional(" + tensor + ")";
    case ValueKind::kOptionalSequence:
      return "optional(seq(" + tensor + "))";
  }
  return tensor;
}

// Types `graph` (nodes given, every node output a graph output) and
// returns the outputs' types.
std::vector<std::string> Types(std::vector<ValueInfo> inputs, std::vector<Node> nodes) {
  Graph graph;
  graph.name = "g";
  graph.inputs = std::move(inputs);
  graph.nodes = std::move(nodes);
  for (const Node& node : graph.nodes) {
    for (const std::string& output : node.outputs) graph.outputs.push_back({output, {}});
  }
  InferTypes(graph);
  std::vector<std::string> types;
  for (const ValueInfo& output : graph.outputs) types.push_back(Show(output.type));
  return types;
}

std::string ErrorOf(std::vector<ValueInfo> inputs, std::vector<Node> nodes) {
  try {
    Types(std::move(inputs), std::move(nodes));
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "no error";
}

const TensorType kSeq = SequenceType({kF32, SymbolicShape{2, "N"}});

TEST(SequenceTypes, ToStringShowsTheKind) {
  EXPECT_EQ(SequenceType({kF32, std::nullopt}).to_string(), "seq(float32[?])");
  EXPECT_EQ(OptionalType({kF32, SymbolicShape{2}}).to_string(), "optional(float32[2])");
  EXPECT_EQ(OptionalType(SequenceType({kI64, std::nullopt})).to_string(),
            "optional(seq(int64[?]))");
  EXPECT_EQ(OptionalType(kSeq).element_of_optional(), kSeq);
  EXPECT_EQ(kSeq.element_of_sequence(), (TensorType{kF32, SymbolicShape{2, "N"}}));
  // The default kind keeps every tensor type as it was.
  EXPECT_EQ((TensorType{kF32, SymbolicShape{3}}).to_string(), "float32[3]");
}

TEST(SequenceTypes, ConstructInsertAtEraseAndLength) {
  EXPECT_EQ(Types({{"a", {kF32, SymbolicShape{2, 3}}},
                   {"b", {kF32, SymbolicShape{2, 5}}},
                   {"p", {kI64, SymbolicShape{}}}},
                  {{"make", "SequenceConstruct", {"a", "b"}, {"s"}, {}},
                   {"ins", "SequenceInsert", {"s", "a", "p"}, {"s2"}, {}},
                   {"at", "SequenceAt", {"s2", "p"}, {"t"}, {}},
                   {"erase", "SequenceErase", {"s2"}, {"s3"}, {}},
                   {"len", "SequenceLength", {"s3"}, {"n"}, {}},
                   {"empty", "SequenceEmpty", {}, {"e"}, {{"dtype", int64_t{6}}}}}),
            (std::vector<std::string>{"seq(float32[2, ?])", "seq(float32[2, ?])", "float32[2, ?]",
                                      "seq(float32[2, ?])", "int64[]", "seq(int32[?])"}));
}

TEST(SequenceTypes, SplitToSequenceAndConcatFromSequenceShapes) {
  EXPECT_EQ(Types({{"x", {kF32, SymbolicShape{4, 6}}}, {"k", {kI64, SymbolicShape{}}}},
                  {{"keep", "SplitToSequence", {"x"}, {"a"}, {{"axis", int64_t{1}}}},
                   {"drop",
                    "SplitToSequence",
                    {"x"},
                    {"b"},
                    {{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}}},
                   {"split", "SplitToSequence", {"x", "k"}, {"c"}, {}},
                   {"cat", "ConcatFromSequence", {"a"}, {"y"}, {{"axis", int64_t{1}}}},
                   {"stack",
                    "ConcatFromSequence",
                    {"b"},
                    {"z"},
                    {{"axis", int64_t{-1}}, {"new_axis", int64_t{1}}}}}),
            (std::vector<std::string>{"seq(float32[4, 1])", "seq(float32[4])", "seq(float32[?, 6])",
                                      "float32[4, ?]", "float32[4, ?]"}));
  EXPECT_TRUE(Contains(
      ErrorOf({{"s", kSeq}}, {{"cat", "ConcatFromSequence", {"s"}, {"y"}, {{"axis", int64_t{2}}}}}),
      "attribute 'axis'"));
}

TEST(SequenceTypes, OptionalsAndTheirElements) {
  EXPECT_EQ(
      Types({{"x", {kF32, SymbolicShape{2}}}, {"s", kSeq}},
            {{"wrap", "Optional", {"x"}, {"o"}, {}},
             {"wrap_seq", "Optional", {"s"}, {"os"}, {}},
             {"none", "Optional", {}, {"n"}, {{"dtype", int64_t{7}}, {"sequence", int64_t{1}}}},
             {"has", "OptionalHasElement", {"o"}, {"h"}, {}},
             {"get", "OptionalGetElement", {"os"}, {"g"}, {}}}),
      (std::vector<std::string>{"optional(float32[2])", "optional(seq(float32[2, N]))",
                                "optional(seq(int64[?]))", "bool[]", "seq(float32[2, N])"}));
  EXPECT_TRUE(
      Contains(ErrorOf({}, {{"none", "Optional", {}, {"n"}, {}}}), "attribute 'type' must say"));
}

TEST(SequenceTypes, KindsAreCheckedAtEveryUse) {
  EXPECT_TRUE(Contains(ErrorOf({{"s", kSeq}}, {{"relu", "Relu", {"s"}, {"y"}, {}}}),
                       "input 's' seq(float32[2, N]) is not a tensor; Relu takes tensors"));
  EXPECT_TRUE(Contains(ErrorOf({{"x", {kF32, SymbolicShape{2}}}, {"p", {kI64, SymbolicShape{}}}},
                               {{"at", "SequenceAt", {"x", "p"}, {"y"}, {}}}),
                       "must be a sequence"));
  EXPECT_TRUE(Contains(ErrorOf({{"s", kSeq}, {"t", {kI64, SymbolicShape{2}}}},
                               {{"ins", "SequenceInsert", {"s", "t"}, {"y"}, {}}}),
                       "does not have the dtype of sequence"));
  EXPECT_TRUE(Contains(ErrorOf({{"s", kSeq}, {"p", {kI64, SymbolicShape{2}}}},
                               {{"at", "SequenceAt", {"s", "p"}, {"y"}, {}}}),
                       "must be a scalar"));
}

TEST(SequenceTypes, IfBranchesMustAgreeOnTheKind) {
  auto branch = [](const std::string& op, const std::string& out) {
    auto graph = std::make_shared<Graph>();
    graph->name = out;
    graph->inputs = {{"x", {kF32, std::nullopt}}};
    graph->nodes = {{op, op, {"x"}, {out}, {}}};
    graph->outputs = {{out, {}}};
    return GraphAttribute(graph);
  };
  const std::vector<ValueInfo> inputs = {{"c", {kBool, SymbolicShape{}}},
                                         {"x", {kF32, SymbolicShape{3}}}};
  EXPECT_EQ(Types(inputs, {{"if",
                            "If",
                            {"c", "x"},
                            {"y"},
                            {{"then_branch", branch("SequenceConstruct", "a")},
                             {"else_branch", branch("SplitToSequence", "b")}},
                            1}}),
            (std::vector<std::string>{"seq(float32[?])"}));
  EXPECT_TRUE(Contains(ErrorOf(inputs, {{"if",
                                         "If",
                                         {"c", "x"},
                                         {"y"},
                                         {{"then_branch", branch("SequenceConstruct", "a")},
                                          {"else_branch", branch("Relu", "b")}},
                                         1}}),
                       "the kinds differ"));
}

TEST(SequenceTypes, SequenceMapTypesItsBodyPerElement) {
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {{"e", {}}, {"w", {}}};
  body->nodes = {{"mul", "Mul", {"e", "w"}, {"m"}, {}}};
  body->outputs = {{"m", {}}};
  EXPECT_EQ(Types({{"s", kSeq}, {"w", {kF32, SymbolicShape{1}}}},
                  {{"map", "SequenceMap", {"s", "w"}, {"out"}, {{"body", GraphAttribute(body)}}}}),
            (std::vector<std::string>{"seq(float32[2, ?])"}));
}

}  // namespace
}  // namespace loom::graph
