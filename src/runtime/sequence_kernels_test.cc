// Sequence and optional ops run in a session (sequence_kernels.h). Every
// expected value is written out by hand from the ONNX definitions.
#include "runtime/sequence_kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "loom/errors.h"
#include "loom/graph.h"
#include "loom/session.h"

namespace loom {
namespace {

Tensor Floats(Shape shape, std::vector<float> values) {
  return Tensor::from_vector(std::move(shape), values);
}
Tensor Int64(int64_t value) { return Tensor::from_vector(Shape(), std::vector<int64_t>{value}); }

std::vector<float> Data(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.num_elements());
}

const TensorType kFloatAny{DType::kFloat32, std::nullopt};
const TensorType kFloatSeq = SequenceType(kFloatAny);

// A graph of `nodes` with `inputs` and `outputs` (types inferred).
Graph MakeGraph(std::vector<ValueInfo> inputs, std::vector<Node> nodes,
                std::vector<std::string> outputs) {
  Graph graph;
  graph.name = "seq";
  graph.inputs = std::move(inputs);
  graph.nodes = std::move(nodes);
  for (const std::string& output : outputs) graph.outputs.push_back({output, kFloatAny});
  return graph;
}

SessionOptions Threads(int intra) {
  SessionOptions options;
  options.use_private_thread_pools = true;
  options.intra_op_threads = intra;
  options.inter_op_threads = 1;
  return options;
}

// The error message of running `graph` on `feeds`, or "" if it ran.
std::string RunError(Graph graph, const std::map<std::string, Value>& feeds) {
  try {
    Session session(std::move(graph));
    session.run_values(feeds);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Value ThreeElements() {
  return Value::Sequence(DType::kFloat32,
                         {Floats({1}, {1}), Floats({2}, {2, 2}), Floats({3}, {3, 3, 3})});
}

class SequenceKernels : public ::testing::TestWithParam<int> {};

TEST_P(SequenceKernels, AtLengthAndNegativePositions) {
  Graph graph = MakeGraph(
      {{"s", kFloatSeq}, {"p", {DType::kInt64, SymbolicShape{}}}},
      {{"at", "SequenceAt", {"s", "p"}, {"y"}, {}}, {"len", "SequenceLength", {"s"}, {"n"}, {}}},
      {"y", "n"});
  Session session(graph, Threads(GetParam()));
  for (const auto& [position, expected] : std::vector<std::pair<int64_t, std::vector<float>>>{
           {0, {1}}, {2, {3, 3, 3}}, {-1, {3, 3, 3}}, {-3, {1}}}) {
    std::vector<Value> out = session.run_values({{"s", ThreeElements()}, {"p", Int64(position)}});
    EXPECT_EQ(Data(out[0].tensor()), expected) << position;
    EXPECT_EQ(out[1].tensor().data<int64_t>()[0], 3);
  }
  for (int64_t position : {3, -4}) {
    try {
      session.run_values({{"s", ThreeElements()}, {"p", Int64(position)}});
      ADD_FAILURE() << position << " was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_TRUE(Contains(e.what(), "position " + std::to_string(position) +
                                         " is out of range for a sequence of 3 elements "
                                         "(valid: [-3, 2])"))
          << e.what();
    }
  }
}

TEST_P(SequenceKernels, InsertAtTheEndByDefaultAndAtAnyPositionInRange) {
  Graph graph = MakeGraph({{"s", kFloatSeq},
                           {"t", {DType::kFloat32, SymbolicShape{1}}},
                           {"p", {DType::kInt64, SymbolicShape{}}}},
                          {{"end", "SequenceInsert", {"s", "t"}, {"a"}, {}},
                           {"at", "SequenceInsert", {"s", "t", "p"}, {"b"}, {}}},
                          {"a", "b"});
  Session session(graph, Threads(GetParam()));
  const Tensor t = Floats({1}, {9});
  const auto firsts = [](const Value& v) {
    std::vector<float> out;
    for (const Tensor& e : v.elements()) out.push_back(e.data<float>()[0]);
    return out;
  };
  // Position 3 (= the length) appends; -1 goes before the last element.
  for (const auto& [position, expected] : std::vector<std::pair<int64_t, std::vector<float>>>{
           {0, {9, 1, 2, 3}}, {3, {1, 2, 3, 9}}, {-1, {1, 2, 9, 3}}, {-3, {9, 1, 2, 3}}}) {
    std::vector<Value> out =
        session.run_values({{"s", ThreeElements()}, {"t", t}, {"p", Int64(position)}});
    EXPECT_EQ(firsts(out[0]), (std::vector<float>{1, 2, 3, 9}));
    EXPECT_EQ(firsts(out[1]), expected) << position;
  }
  EXPECT_THROW(session.run_values({{"s", ThreeElements()}, {"t", t}, {"p", Int64(4)}}),
               InvalidArgumentError);
  EXPECT_THROW(session.run_values({{"s", ThreeElements()}, {"t", t}, {"p", Int64(-4)}}),
               InvalidArgumentError);
  // The input sequence is not changed: the kernel moves handles into a new one.
  const Value input = ThreeElements();
  session.run_values({{"s", input}, {"t", t}, {"p", Int64(0)}});
  EXPECT_EQ(input.elements().size(), 3u);
}

TEST_P(SequenceKernels, EraseTheLastByDefaultAndFailOnAnEmptySequence) {
  Graph graph = MakeGraph(
      {{"s", kFloatSeq}, {"p", {DType::kInt64, SymbolicShape{}}}},
      {{"last", "SequenceErase", {"s"}, {"a"}, {}}, {"at", "SequenceErase", {"s", "p"}, {"b"}, {}}},
      {"a", "b"});
  Session session(graph, Threads(GetParam()));
  std::vector<Value> out = session.run_values({{"s", ThreeElements()}, {"p", Int64(-3)}});
  ASSERT_EQ(out[0].elements().size(), 2u);
  EXPECT_EQ(out[0].elements()[1].shape(), Shape({2}));
  ASSERT_EQ(out[1].elements().size(), 2u);
  EXPECT_EQ(out[1].elements()[0].shape(), Shape({2}));
  const Value empty = Value::Sequence(DType::kFloat32, {});
  try {
    session.run_values({{"s", empty}, {"p", Int64(0)}});
    ADD_FAILURE() << "erasing from an empty sequence was accepted";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "out of range for a sequence of 0 elements")) << e.what();
  }
}

TEST_P(SequenceKernels, EmptyConstructAndLength) {
  Graph graph = MakeGraph({{"x", {DType::kFloat32, SymbolicShape{2}}}},
                          {{"empty", "SequenceEmpty", {}, {"e"}, {{"dtype", int64_t{7}}}},
                           {"len0", "SequenceLength", {"e"}, {"n0"}, {}},
                           {"make", "SequenceConstruct", {"x", "x"}, {"s"}, {}},
                           {"len2", "SequenceLength", {"s"}, {"n2"}, {}}},
                          {"e", "n0", "s", "n2"});
  Session session(graph, Threads(GetParam()));
  EXPECT_EQ(session.outputs()[0].type.to_string(), "seq(int64[?])");
  EXPECT_EQ(session.outputs()[2].type.to_string(), "seq(float32[2])");
  std::vector<Value> out = session.run_values({{"x", Floats({2}, {4, 5})}});
  EXPECT_TRUE(out[0].elements().empty());
  EXPECT_EQ(out[0].element_dtype(), DType::kInt64);  // ONNX's INT64 is 7
  EXPECT_EQ(out[1].tensor().data<int64_t>()[0], 0);
  ASSERT_EQ(out[2].elements().size(), 2u);
  EXPECT_EQ(Data(out[2].elements()[1]), (std::vector<float>{4, 5}));
  EXPECT_EQ(out[3].tensor().data<int64_t>()[0], 2);
}

TEST_P(SequenceKernels, SplitToSequenceWithAndWithoutSplit) {
  // x = [[0, 1, 2], [3, 4, 5]] (2x3)
  const Tensor x = Floats({2, 3}, {0, 1, 2, 3, 4, 5});
  Graph graph = MakeGraph(
      {{"x", {DType::kFloat32, SymbolicShape{2, 3}}},
       {"chunk", {DType::kInt64, SymbolicShape{}}},
       {"sizes", {DType::kInt64, SymbolicShape{2}}}},
      {{"keep", "SplitToSequence", {"x"}, {"a"}, {{"axis", int64_t{1}}}},
       {"drop", "SplitToSequence", {"x"}, {"b"}, {{"axis", int64_t{1}}, {"keepdims", int64_t{0}}}},
       {"scalar", "SplitToSequence", {"x", "chunk"}, {"c"}, {{"axis", int64_t{-1}}}},
       {"list", "SplitToSequence", {"x", "sizes"}, {"d"}, {{"axis", int64_t{1}}}}},
      {"a", "b", "c", "d"});
  Session session(graph, Threads(GetParam()));
  EXPECT_EQ(session.outputs()[0].type.to_string(), "seq(float32[2, 1])");
  EXPECT_EQ(session.outputs()[1].type.to_string(), "seq(float32[2])");
  std::vector<Value> out = session.run_values(
      {{"x", x}, {"chunk", Int64(2)}, {"sizes", Tensor::from_vector<int64_t>({2}, {1, 2})}});
  ASSERT_EQ(out[0].elements().size(), 3u);
  EXPECT_EQ(out[0].elements()[1].shape(), Shape({2, 1}));
  EXPECT_EQ(Data(out[0].elements()[1]), (std::vector<float>{1, 4}));
  ASSERT_EQ(out[1].elements().size(), 3u);
  EXPECT_EQ(out[1].elements()[2].shape(), Shape({2}));
  EXPECT_EQ(Data(out[1].elements()[2]), (std::vector<float>{2, 5}));
  // Chunks of 2 along the 3 columns: [2 columns], [1 column]; keepdims
  // does not apply with a split.
  ASSERT_EQ(out[2].elements().size(), 2u);
  EXPECT_EQ(Data(out[2].elements()[0]), (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(out[2].elements()[1].shape(), Shape({2, 1}));
  EXPECT_EQ(Data(out[2].elements()[1]), (std::vector<float>{2, 5}));
  ASSERT_EQ(out[3].elements().size(), 2u);
  EXPECT_EQ(Data(out[3].elements()[0]), (std::vector<float>{0, 3}));
  EXPECT_EQ(Data(out[3].elements()[1]), (std::vector<float>{1, 2, 4, 5}));
  try {
    session.run_values(
        {{"x", x}, {"chunk", Int64(2)}, {"sizes", Tensor::from_vector<int64_t>({2}, {1, 1})}});
    ADD_FAILURE() << "a split that does not sum to the dim was accepted";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "split [1, 1] sums to 2")) << e.what();
  }
  // Sizes past the dim (here ones whose sum would overflow) are refused.
  for (const std::vector<int64_t>& sizes :
       {std::vector<int64_t>{2, 2}, std::vector<int64_t>{INT64_MAX, INT64_MAX}}) {
    EXPECT_THROW(
        session.run_values(
            {{"x", x}, {"chunk", Int64(2)}, {"sizes", Tensor::from_vector<int64_t>({2}, sizes)}}),
        InvalidArgumentError);
  }
  EXPECT_THROW(
      session.run_values(
          {{"x", x}, {"chunk", Int64(0)}, {"sizes", Tensor::from_vector<int64_t>({2}, {1, 2})}}),
      InvalidArgumentError);
}

TEST_P(SequenceKernels, ConcatFromSequenceConcatenatesOrStacks) {
  Graph graph = MakeGraph({{"s", kFloatSeq}},
                          {{"cat", "ConcatFromSequence", {"s"}, {"a"}, {{"axis", int64_t{-1}}}},
                           {"stack",
                            "ConcatFromSequence",
                            {"s"},
                            {"b"},
                            {{"axis", int64_t{1}}, {"new_axis", int64_t{1}}}}},
                          {"a", "b"});
  Session session(graph, Threads(GetParam()));
  // Two 2x1 and one 2x2 along the last axis for Concat; equal shapes for stacking.
  const Value same = Value::Sequence(DType::kFloat32,
                                     {Floats({2, 2}, {1, 2, 3, 4}), Floats({2, 2}, {5, 6, 7, 8})});
  std::vector<Value> out = session.run_values({{"s", same}});
  EXPECT_EQ(out[0].tensor().shape(), Shape({2, 4}));
  EXPECT_EQ(Data(out[0].tensor()), (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));
  EXPECT_EQ(out[1].tensor().shape(), Shape({2, 2, 2}));
  EXPECT_EQ(Data(out[1].tensor()), (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8}));

  Graph concat_only =
      MakeGraph({{"s", kFloatSeq}},
                {{"cat", "ConcatFromSequence", {"s"}, {"a"}, {{"axis", int64_t{1}}}}}, {"a"});
  Session concat(concat_only, Threads(GetParam()));
  const Value ragged =
      Value::Sequence(DType::kFloat32, {Floats({2, 1}, {1, 2}), Floats({2, 2}, {3, 4, 5, 6})});
  EXPECT_EQ(Data(concat.run_values({{"s", ragged}})[0].tensor()),
            (std::vector<float>{1, 3, 4, 2, 5, 6}));
  const Value mixed =
      Value::Sequence(DType::kFloat32, {Floats({2, 1}, {1, 2}), Floats({3, 1}, {3, 4, 5})});
  try {
    concat.run_values({{"s", mixed}});
    ADD_FAILURE() << "mixed shapes were concatenated";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "element 1 float32[3, 1] does not fit element 0 float32[2, 1]"))
        << e.what();
  }
  try {
    concat.run_values({{"s", Value::Sequence(DType::kFloat32, {})}});
    ADD_FAILURE() << "an empty sequence was concatenated";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "the sequence is empty")) << e.what();
  }
}

TEST_P(SequenceKernels, OptionalHasAndGetElement) {
  Graph graph = MakeGraph(
      {{"x", {DType::kFloat32, SymbolicShape{2}}}},
      {{"full", "Optional", {"x"}, {"o"}, {}},
       {"empty", "Optional", {}, {"e"}, {{"dtype", int64_t{1}}, {"sequence", int64_t{0}}}},
       {"has_full", "OptionalHasElement", {"o"}, {"h1"}, {}},
       {"has_empty", "OptionalHasElement", {"e"}, {"h0"}, {}},
       {"get", "OptionalGetElement", {"o"}, {"y"}, {}}},
      {"h1", "h0", "y", "e"});
  Session session(graph, Threads(GetParam()));
  EXPECT_EQ(session.outputs()[3].type.to_string(), "optional(float32[?])");
  std::vector<Value> out = session.run_values({{"x", Floats({2}, {7, 8})}});
  EXPECT_TRUE(out[0].tensor().data<bool>()[0]);
  EXPECT_FALSE(out[1].tensor().data<bool>()[0]);
  EXPECT_EQ(Data(out[2].tensor()), (std::vector<float>{7, 8}));
  EXPECT_TRUE(out[3].is_none());

  Graph get_empty = MakeGraph({{"o", OptionalType({DType::kFloat32, SymbolicShape{2}})}},
                              {{"get", "OptionalGetElement", {"o"}, {"y"}, {}},
                               {"has", "OptionalHasElement", {"o"}, {"h"}, {}}},
                              {"y", "h"});
  const std::string error = RunError(get_empty, {{"o", Value::None()}});
  EXPECT_TRUE(Contains(error, "the optional is empty")) << error;
  // An optional input not fed is empty, as in ONNX Runtime.
  Session unfed(get_empty, Threads(GetParam()));
  EXPECT_FALSE(unfed.run_values({}, {"h"})[0].tensor().data<bool>()[0]);
  Session fed(get_empty, Threads(GetParam()));
  std::vector<Value> got = fed.run_values({{"o", Floats({2}, {1, 2})}});
  EXPECT_EQ(Data(got[0].tensor()), (std::vector<float>{1, 2}));
  EXPECT_TRUE(got[1].tensor().data<bool>()[0]);
}

TEST_P(SequenceKernels, LoopBuildsASequence) {
  // for i in 0..M-1: s = SequenceInsert(s, Unsqueeze(Cast(i), [0]))
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {{"i", {DType::kInt64, SymbolicShape{}}},
                  {"c", {DType::kBool, SymbolicShape{}}},
                  {"s", kFloatSeq}};
  body->initializers["axes"] = Tensor::from_vector<int64_t>({1}, {0});
  body->nodes = {{"cast", "Cast", {"i"}, {"f"}, {{"to", int64_t{1}}}},
                 {"unsq", "Unsqueeze", {"f", "axes"}, {"u"}, {}},
                 {"ins", "SequenceInsert", {"s", "u"}, {"s_next"}, {}},
                 {"keep", "Identity", {"c"}, {"c_next"}, {}}};
  body->outputs = {{"c_next", kFloatAny}, {"s_next", kFloatAny}};
  Graph graph =
      MakeGraph({{"M", {DType::kInt64, SymbolicShape{}}}},
                {{"empty", "SequenceEmpty", {}, {"s0"}, {}},
                 {"loop", "Loop", {"M", "", "s0"}, {"s"}, {{"body", GraphAttribute(body)}}},
                 {"cat", "ConcatFromSequence", {"s"}, {"y"}, {{"axis", int64_t{0}}}}},
                {"s", "y"});
  Session session(graph, Threads(GetParam()));
  EXPECT_EQ(session.outputs()[0].type.kind, ValueKind::kSequence);
  std::vector<Value> out = session.run_values({{"M", Int64(3)}});
  ASSERT_EQ(out[0].elements().size(), 3u);
  EXPECT_EQ(Data(out[0].elements()[2]), (std::vector<float>{2}));
  EXPECT_EQ(Data(out[1].tensor()), (std::vector<float>{0, 1, 2}));
  // Zero iterations: the empty sequence comes back; concatenating it fails.
  std::vector<Value> none = session.run_values({{"M", Int64(0)}}, {"s"});
  EXPECT_TRUE(none[0].elements().empty());
}

TEST_P(SequenceKernels, SequenceMapRunsTheBodyPerElement) {
  // body(x, y, bias) = (x * y + bias, Shape(x)); x and y from two
  // sequences, bias a tensor given to every run.
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {{"x", kFloatAny}, {"y", kFloatAny}, {"bias", kFloatAny}};
  body->nodes = {{"mul", "Mul", {"x", "y"}, {"xy"}, {}},
                 {"add", "Add", {"xy", "bias"}, {"out"}, {}},
                 {"shape", "Shape", {"x"}, {"shape_out"}, {}}};
  body->outputs = {{"out", kFloatAny}, {"shape_out", kFloatAny}};
  Graph graph = MakeGraph(
      {{"s", kFloatSeq}, {"t", kFloatSeq}, {"b", {DType::kFloat32, SymbolicShape{}}}},
      {{"map", "SequenceMap", {"s", "t", "b"}, {"m", "shapes"}, {{"body", GraphAttribute(body)}}}},
      {"m", "shapes"});
  Session session(graph, Threads(GetParam()));
  // Shape(x) has one dim, whose size differs from element to element.
  const TensorType shapes = session.outputs()[1].type;
  EXPECT_EQ(shapes.kind, ValueKind::kSequence);
  EXPECT_EQ(shapes.dtype, DType::kInt64);
  ASSERT_TRUE(shapes.shape.has_value());
  ASSERT_EQ(shapes.shape->size(), 1u);
  EXPECT_FALSE((*shapes.shape)[0].is_known());
  const Value s = Value::Sequence(DType::kFloat32, {Floats({1}, {2}), Floats({3}, {1, 2, 3})});
  const Value t = Value::Sequence(DType::kFloat32, {Floats({1}, {5}), Floats({3}, {4, 5, 6})});
  std::vector<Value> out =
      session.run_values({{"s", s}, {"t", t}, {"b", Tensor::from_vector<float>(Shape(), {1})}});
  ASSERT_EQ(out[0].elements().size(), 2u);
  EXPECT_EQ(Data(out[0].elements()[0]), (std::vector<float>{11}));
  EXPECT_EQ(Data(out[0].elements()[1]), (std::vector<float>{5, 11, 19}));
  EXPECT_EQ(out[1].elements()[1].data<int64_t>()[0], 3);
  // Sequences of different lengths do not map.
  const Value short_t = Value::Sequence(DType::kFloat32, {Floats({1}, {5})});
  EXPECT_THROW(session.run_values(
                   {{"s", s}, {"t", short_t}, {"b", Tensor::from_vector<float>(Shape(), {1})}}),
               InvalidArgumentError);
  // An empty input sequence gives empty output sequences of the body's dtypes.
  const Value empty = Value::Sequence(DType::kFloat32, {});
  std::vector<Value> nothing = session.run_values(
      {{"s", empty}, {"t", empty}, {"b", Tensor::from_vector<float>(Shape(), {1})}});
  EXPECT_TRUE(nothing[0].elements().empty());
  EXPECT_EQ(nothing[1].element_dtype(), DType::kInt64);
}

INSTANTIATE_TEST_SUITE_P(Threads, SequenceKernels, ::testing::Values(1, 3));

TEST(SequenceExecutor, ParallelBranchesShareOneInputSequence) {
  // Four branches read the one fed sequence at once (inter-op 3), each
  // building its own: the input is never changed, every result is exact.
  std::vector<Node> nodes;
  std::vector<std::string> outputs;
  for (int b = 0; b < 4; ++b) {
    const std::string k = std::to_string(b);
    nodes.push_back({"ins" + k, "SequenceInsert", {"s", "x", "p" + k}, {"s" + k}, {}});
    nodes.push_back(
        {"cat" + k, "ConcatFromSequence", {"s" + k}, {"y" + k}, {{"axis", int64_t{0}}}});
    outputs.push_back("y" + k);
  }
  Graph graph = MakeGraph({{"s", kFloatSeq},
                           {"x", {DType::kFloat32, SymbolicShape{1}}},
                           {"p0", {DType::kInt64, SymbolicShape{}}},
                           {"p1", {DType::kInt64, SymbolicShape{}}},
                           {"p2", {DType::kInt64, SymbolicShape{}}},
                           {"p3", {DType::kInt64, SymbolicShape{}}}},
                          std::move(nodes), outputs);
  SessionOptions options = Threads(1);
  options.inter_op_threads = 3;
  Session session(graph, options);
  const Value s = Value::Sequence(DType::kFloat32, {Floats({1}, {1}), Floats({2}, {2, 3})});
  for (int run = 0; run < 50; ++run) {
    std::vector<Value> out = session.run_values({{"s", s},
                                                 {"x", Floats({1}, {9})},
                                                 {"p0", Int64(0)},
                                                 {"p1", Int64(1)},
                                                 {"p2", Int64(2)},
                                                 {"p3", Int64(-1)}});
    EXPECT_EQ(Data(out[0].tensor()), (std::vector<float>{9, 1, 2, 3}));
    EXPECT_EQ(Data(out[1].tensor()), (std::vector<float>{1, 9, 2, 3}));
    EXPECT_EQ(Data(out[2].tensor()), (std::vector<float>{1, 2, 3, 9}));
    EXPECT_EQ(Data(out[3].tensor()), (std::vector<float>{1, 9, 2, 3}));
  }
  EXPECT_EQ(s.elements().size(), 2u);
}

TEST(SequenceTypes, TensorOpsRefuseSequencesWhenTheGraphIsTyped) {
  Graph graph = MakeGraph({{"s", kFloatSeq}}, {{"neg", "Neg", {"s"}, {"y"}, {}}}, {"y"});
  try {
    Session session(graph);
    ADD_FAILURE() << "Neg of a sequence was accepted";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "'s' seq(float32[?]) is not a tensor; Neg takes tensors"))
        << e.what();
  }
}

TEST(SequenceTypes, FeedsAreCheckedAgainstTheInputKind) {
  Graph graph = MakeGraph({{"s", SequenceType({DType::kFloat32, SymbolicShape{2}})}},
                          {{"len", "SequenceLength", {"s"}, {"n"}, {}}}, {"n"});
  Session session(graph);
  EXPECT_THROW(session.run_values({{"s", Floats({2}, {1, 2})}}), InvalidArgumentError);
  EXPECT_THROW(session.run_values({{"s", Value::None()}}), InvalidArgumentError);
  EXPECT_THROW(session.run_values({{"s", Value::Sequence(DType::kInt64, {})}}),
               InvalidArgumentError);
  // Each element's known dims are checked.
  EXPECT_THROW(
      session.run_values({{"s", Value::Sequence(DType::kFloat32, {Floats({3}, {1, 2, 3})})}}),
      InvalidArgumentError);
  // The tensor-only run() refuses to return a sequence.
  Graph identity = MakeGraph({{"s", kFloatSeq}}, {{"id", "Identity", {"s"}, {"y"}, {}}}, {"y"});
  Session pass(identity);
  EXPECT_EQ(pass.run_values({{"s", ThreeElements()}})[0].elements().size(), 3u);
  EXPECT_THROW(pass.run({}), InvalidArgumentError);
}

TEST(SequenceMemory, SequenceElementsCountInThePeakAndTheCap) {
  // SplitToSequence copies x (4096 floats = 16 KiB) into 4 elements that
  // are all alive when ConcatFromSequence runs.
  Graph graph = MakeGraph({{"x", {DType::kFloat32, SymbolicShape{4, 1024}}}},
                          {{"split", "SplitToSequence", {"x"}, {"s"}, {}},
                           {"cat", "ConcatFromSequence", {"s"}, {"y"}, {{"axis", int64_t{0}}}}},
                          {"y"});
  Session session(graph);
  const Tensor x(DType::kFloat32, Shape({4, 1024}));
  RunStats stats;
  session.run_values({{"x", x}}, {}, {}, &stats);
  // The elements (16 KiB) and the output (16 KiB) are alive together.
  EXPECT_GE(stats.peak_bytes, 2 * 4 * 4096);
  SessionOptions capped;
  capped.max_memory_bytes = 20 * 1024;  // the elements fit, elements + output do not
  Session small(graph, capped);
  EXPECT_THROW(small.run_values({{"x", x}}), RuntimeError);
}

}  // namespace
}  // namespace loom
