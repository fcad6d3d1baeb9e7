// Model-local functions: InlineFunctions on ModelProtos built in code (names,
// bindings, attribute references, errors), and whole models through
// load_onnx_model_from_bytes and a Session, with results worked out by hand.
#include "onnx_import/function_inliner.h"

#include <gtest/gtest.h>

#include <set>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

std::vector<Tensor> RunModel(const std::string& bytes, const std::map<std::string, Tensor>& feeds) {
  Session session(load_onnx_model_from_bytes(bytes, "", "test.onnx"));
  return session.run(feeds);
}

std::string InlineError(onnx::ModelProto model) {
  try {
    InlineFunctions(model);
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

Tensor Floats(const std::vector<float>& values) {
  return Tensor::from_vector<float>({static_cast<int64_t>(values.size())}, values);
}

// custom::AddMul(a, b) => (y): t = a + b; y = t * b.
onnx::FunctionProto* AddAddMul(TestModel& m) {
  onnx::FunctionProto* f = m.Function("custom", "AddMul", {"a", "b"}, {"y"});
  FunctionNode(f, "Add", {"a", "b"}, {"t"}, "add");
  FunctionNode(f, "Mul", {"t", "b"}, {"y"}, "mul");
  return f;
}

TEST(FunctionInliner, TwoCallsGetDistinctNamesAndRightOutputs) {
  TestModel m;
  AddAddMul(m);
  m.Input("x", kFloat, {2});
  m.Input("w", kFloat, {2});
  // The graph already has a value named like c1's internal one.
  m.Node("Relu", {"x"}, {"c1/t"}, "pre");
  m.Node("AddMul", {"x", "w"}, {"u"}, "c1")->set_domain("custom");
  m.Node("AddMul", {"u", "w"}, {"z"}, "c2")->set_domain("custom");
  m.Output("c1/t", kFloat, {2});
  m.Output("z", kFloat, {2});

  onnx::ModelProto model = m.proto();
  const std::vector<InlinedFunction> inlined = InlineFunctions(model);
  ASSERT_EQ(inlined.size(), 1u);
  EXPECT_EQ(inlined[0].label, "custom::AddMul");
  EXPECT_EQ(inlined[0].default_opset, 13);
  EXPECT_EQ(inlined[0].default_domain_ops, (std::vector<std::string>{"Add", "Mul"}));
  const onnx::GraphProto& g = model.graph();
  ASSERT_EQ(g.node_size(), 5);
  std::vector<std::string> names;
  for (const auto& node : g.node()) names.push_back(node.name());
  EXPECT_EQ(names, (std::vector<std::string>{"pre", "c1/add", "c1/mul", "c2/add", "c2/mul"}));
  // c1's t may not take the graph's "c1/t"; c2's is its own.
  EXPECT_EQ(g.node(1).output(0), "c1/t_1");
  EXPECT_EQ(g.node(2).input(0), "c1/t_1");
  EXPECT_EQ(g.node(2).output(0), "u");
  EXPECT_EQ(g.node(3).input(0), "u");
  EXPECT_EQ(g.node(3).output(0), "c2/t");
  EXPECT_EQ(g.node(4).output(0), "z");

  // u = (x + w) * w = [4*3, 6*4] = [12, 24]; z = (u + w) * w = [15*3, 28*4].
  const std::vector<Tensor> out =
      RunModel(m.Serialize(), {{"x", Floats({1, 2})}, {"w", Floats({3, 4})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{45, 112}));
}

TEST(FunctionInliner, UnnamedCallsArePrefixedWithTheFunctionName) {
  TestModel m;
  AddAddMul(m);
  m.Input("x", kFloat, {2});
  m.Node("AddMul", {"x", "x"}, {"u"})->set_domain("custom");
  m.Node("AddMul", {"u", "x"}, {"z"})->set_domain("custom");
  m.Output("z", kFloat, {2});
  onnx::ModelProto model = m.proto();
  InlineFunctions(model);
  std::set<std::string> names;
  for (const auto& node : model.graph().node()) names.insert(node.name());
  EXPECT_EQ(names,
            (std::set<std::string>{"AddMul/add", "AddMul/mul", "AddMul_1/add", "AddMul_1/mul"}));
  // u = (x + x) * x = 2x²; z = (u + x) * x. x = 2: u = 8, z = 20.
  EXPECT_EQ(Values(RunModel(m.Serialize(), {{"x", Floats({2, -1})}})[0]),
            (std::vector<float>{20, -1}));
}

TEST(FunctionInliner, NestedFunctionsAreInlined) {
  TestModel m;
  // custom::Negate(p) => (q): q = -p.
  onnx::FunctionProto* negate = m.Function("custom", "Negate", {"p"}, {"q"});
  FunctionNode(negate, "Neg", {"p"}, {"q"}, "neg");
  // custom::NegSquare(a) => (y): s = Negate(a); y = s * a  (-a²).
  onnx::FunctionProto* neg_square = m.Function("custom", "NegSquare", {"a"}, {"y"});
  FunctionNode(neg_square, "Negate", {"a"}, {"s"}, "inner")->set_domain("custom");
  FunctionNode(neg_square, "Mul", {"s", "a"}, {"y"}, "mul");
  // custom::Outer(a) => (y): y = NegSquare(NegSquare(a)) = -(a²)² ... = -a⁴.
  onnx::FunctionProto* outer = m.Function("custom", "Outer", {"a"}, {"y"});
  FunctionNode(outer, "NegSquare", {"a"}, {"m"}, "first")->set_domain("custom");
  FunctionNode(outer, "NegSquare", {"m"}, {"y"}, "second")->set_domain("custom");
  m.Input("x", kFloat, {3});
  m.Node("Outer", {"x"}, {"y"}, "o")->set_domain("custom");
  m.Output("y", kFloat, {3});

  onnx::ModelProto model = m.proto();
  const std::vector<InlinedFunction> inlined = InlineFunctions(model);
  std::vector<std::string> labels;
  for (const auto& f : inlined) labels.push_back(f.label);
  EXPECT_EQ(labels,
            (std::vector<std::string>{"custom::Outer", "custom::NegSquare", "custom::Negate"}));
  EXPECT_TRUE(inlined[0].default_domain_ops.empty());  // Outer's body holds only calls
  std::vector<std::string> names;
  for (const auto& node : model.graph().node()) names.push_back(node.name());
  EXPECT_EQ(names, (std::vector<std::string>{"o/first/inner/neg", "o/first/mul",
                                             "o/second/inner/neg", "o/second/mul"}));
  // m = -(x²); y = -(m²) = -x⁴: x = [1, 2, -3] → [-1, -16, -81].
  EXPECT_EQ(Values(RunModel(m.Serialize(), {{"x", Floats({1, 2, -3})}})[0]),
            (std::vector<float>{-1, -16, -81}));
}

TEST(FunctionInliner, AttributeReferencesTakeCallerValueThenDefaultElseOpDefault) {
  TestModel m;
  // custom::Leaky(x) => (y): y = LeakyRelu(x, alpha = @slope), default slope 0.25.
  onnx::FunctionProto* leaky = m.Function("custom", "Leaky", {"x"}, {"y"});
  SetRef(FunctionNode(leaky, "LeakyRelu", {"x"}, {"y"}), "alpha", onnx::AttributeProto::FLOAT,
         "slope");
  onnx::AttributeProto* slope_default = leaky->add_attribute_proto();
  slope_default->set_name("slope");
  slope_default->set_type(onnx::AttributeProto::FLOAT);
  slope_default->set_f(0.25f);
  // custom::LeakyNoDefault: the same without a default (LeakyRelu's own: 0.01).
  onnx::FunctionProto* plain = m.Function("custom", "LeakyNoDefault", {"x"}, {"y"});
  plain->add_attribute("slope");
  SetRef(FunctionNode(plain, "LeakyRelu", {"x"}, {"y"}), "alpha", onnx::AttributeProto::FLOAT,
         "slope");
  // custom::Relay(x) => (y) passes its attribute `a` on as Leaky's `slope`.
  onnx::FunctionProto* relay = m.Function("custom", "Relay", {"x"}, {"y"});
  relay->add_attribute("a");
  SetRef(FunctionNode(relay, "LeakyNoDefault", {"x"}, {"y"}), "slope", onnx::AttributeProto::FLOAT,
         "a")
      ->set_domain("custom");

  m.Input("x", kFloat, {1});
  SetFloat(m.Node("Leaky", {"x"}, {"given"}, "given"), "slope", 0.5f)->set_domain("custom");
  m.Node("Leaky", {"x"}, {"defaulted"}, "defaulted")->set_domain("custom");
  m.Node("LeakyNoDefault", {"x"}, {"absent"}, "absent")->set_domain("custom");
  SetFloat(m.Node("Relay", {"x"}, {"relayed"}, "relayed"), "a", 0.75f)->set_domain("custom");
  for (const char* y : {"given", "defaulted", "absent", "relayed"}) m.Output(y, kFloat, {1});

  onnx::ModelProto model = m.proto();
  InlineFunctions(model);
  ASSERT_EQ(model.graph().node_size(), 4);
  EXPECT_EQ(model.graph().node(0).attribute(0).name(), "alpha");
  EXPECT_EQ(model.graph().node(0).attribute(0).ref_attr_name(), "");
  EXPECT_EQ(model.graph().node(0).attribute(0).f(), 0.5f);
  EXPECT_EQ(model.graph().node(1).attribute(0).f(), 0.25f);
  EXPECT_EQ(model.graph().node(2).attribute_size(), 0);
  EXPECT_EQ(model.graph().node(3).attribute(0).f(), 0.75f);

  // LeakyRelu(-2) = -2 · alpha.
  const std::vector<Tensor> out = RunModel(m.Serialize(), {{"x", Floats({-2})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-1.0f}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{-0.5f}));
  EXPECT_EQ(Values(out[2]), (std::vector<float>{-2 * 0.01f}));
  EXPECT_EQ(Values(out[3]), (std::vector<float>{-1.5f}));
}

TEST(FunctionInliner, AttributeReferenceOfAnotherTypeIsRefused) {
  TestModel m;
  onnx::FunctionProto* leaky = m.Function("custom", "Leaky", {"x"}, {"y"});
  SetRef(FunctionNode(leaky, "LeakyRelu", {"x"}, {"y"}, "lr"), "alpha", onnx::AttributeProto::FLOAT,
         "slope");
  m.Input("x", kFloat, {1});
  SetInt(m.Node("Leaky", {"x"}, {"y"}, "call"), "slope", 1)->set_domain("custom");
  m.Output("y", kFloat, {1});
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error, "custom::Leaky")) << error;
  EXPECT_TRUE(Contains(error, "'slope', which is given as INT")) << error;
}

TEST(FunctionInliner, MissingOptionalInputBecomesEmpty) {
  TestModel m;
  // custom::ClipF(x, lo, hi) => (y): y = Clip(x, lo, hi).
  onnx::FunctionProto* clip = m.Function("custom", "ClipF", {"x", "lo", "hi"}, {"y"});
  FunctionNode(clip, "Clip", {"x", "lo", "hi"}, {"y"});
  m.Input("x", kFloat, {3});
  m.Initializer(Tensor::from_vector<float>(Shape(), {-1}), "lo");
  m.Initializer(Tensor::from_vector<float>(Shape(), {2}), "hi");
  m.Node("ClipF", {"x", "lo"}, {"low_only"}, "low_only")->set_domain("custom");
  m.Node("ClipF", {"x", "", "hi"}, {"high_only"}, "high_only")->set_domain("custom");
  m.Output("low_only", kFloat, {3});
  m.Output("high_only", kFloat, {3});

  onnx::ModelProto model = m.proto();
  InlineFunctions(model);
  const auto& inputs = [&](int i) {
    const auto& in = model.graph().node(i).input();
    return std::vector<std::string>(in.begin(), in.end());
  };
  EXPECT_EQ(inputs(0), (std::vector<std::string>{"x", "lo", ""}));
  EXPECT_EQ(inputs(1), (std::vector<std::string>{"x", "", "hi"}));

  const std::vector<Tensor> out = RunModel(m.Serialize(), {{"x", Floats({-5, 0, 5})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{-1, 0, 5}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{-5, 0, 2}));
}

TEST(FunctionInliner, UnusedOutputsGetFreshNames) {
  TestModel m;
  // custom::Parts(x) => (pos, neg): pos = relu(x), neg = relu(-x).
  onnx::FunctionProto* parts = m.Function("custom", "Parts", {"x"}, {"pos", "neg"});
  FunctionNode(parts, "Relu", {"x"}, {"pos"});
  FunctionNode(parts, "Neg", {"x"}, {"n"});
  FunctionNode(parts, "Relu", {"n"}, {"neg"});
  m.Input("x", kFloat, {2});
  m.Node("Parts", {"x"}, {"p"}, "first")->set_domain("custom");       // neg left out
  m.Node("Parts", {"x"}, {"", "q"}, "second")->set_domain("custom");  // pos passed as ""
  m.Output("p", kFloat, {2});
  m.Output("q", kFloat, {2});

  onnx::ModelProto model = m.proto();
  InlineFunctions(model);
  ASSERT_EQ(model.graph().node_size(), 6);
  EXPECT_EQ(model.graph().node(0).output(0), "p");
  EXPECT_EQ(model.graph().node(2).output(0), "first/neg");
  EXPECT_EQ(model.graph().node(3).output(0), "second/pos");
  EXPECT_EQ(model.graph().node(5).output(0), "q");

  const std::vector<Tensor> out = RunModel(m.Serialize(), {{"x", Floats({-3, 4})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{0, 4}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{3, 0}));
}

TEST(FunctionInliner, OutputThatIsAnInputBecomesIdentity) {
  TestModel m;
  // custom::KeepAndDouble(x) => (x, d): d = x + x.
  onnx::FunctionProto* f = m.Function("custom", "KeepAndDouble", {"x"}, {"x", "d"});
  FunctionNode(f, "Add", {"x", "x"}, {"d"});
  m.Input("in", kFloat, {2});
  m.Node("KeepAndDouble", {"in"}, {"kept", "doubled"}, "k")->set_domain("custom");
  m.Output("kept", kFloat, {2});
  m.Output("doubled", kFloat, {2});
  const std::vector<Tensor> out = RunModel(m.Serialize(), {{"in", Floats({1.5f, -2})}});
  EXPECT_EQ(Values(out[0]), (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(Values(out[1]), (std::vector<float>{3, -4}));
}

TEST(FunctionInliner, RecursionIsRefused) {
  {
    TestModel m;
    onnx::FunctionProto* a = m.Function("custom", "A", {"x"}, {"y"});
    FunctionNode(a, "B", {"x"}, {"y"})->set_domain("custom");
    onnx::FunctionProto* b = m.Function("custom", "B", {"x"}, {"y"});
    FunctionNode(b, "Relu", {"x"}, {"t"});
    FunctionNode(b, "A", {"t"}, {"y"})->set_domain("custom");
    m.Input("x", kFloat, {1});
    m.Node("A", {"x"}, {"y"})->set_domain("custom");
    m.Output("y", kFloat, {1});
    const std::string error = LoadError(m.Serialize());
    EXPECT_TRUE(Contains(error,
                         "test.onnx: function 'custom::A' calls itself: custom::A → "
                         "custom::B → custom::A"))
        << error;
  }
  {
    TestModel m;
    onnx::FunctionProto* self = m.Function("custom", "Self", {"x"}, {"y"});
    FunctionNode(self, "Self", {"x"}, {"y"})->set_domain("custom");
    m.Input("x", kFloat, {1});
    m.Node("Self", {"x"}, {"y"})->set_domain("custom");
    m.Output("y", kFloat, {1});
    EXPECT_TRUE(Contains(InlineError(m.proto()), "'custom::Self' calls itself"));
  }
}

TEST(FunctionInliner, UncalledRecursiveFunctionIsIgnored) {
  TestModel m;
  onnx::FunctionProto* self = m.Function("custom", "Self", {"x"}, {"y"});
  FunctionNode(self, "Self", {"x"}, {"y"})->set_domain("custom");
  m.Input("x", kFloat, {1});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", kFloat, {1});
  EXPECT_EQ(LoadError(m.Serialize()), "");
}

TEST(FunctionInliner, TooManyInlinedNodesAreRefusedBeforeCopying) {
  // F0(x) = relu(x); Fi(x) = F(i-1)(F(i-1)(x)): F20 is 2^20 = 1,048,576 Relus.
  TestModel m;
  onnx::FunctionProto* f0 = m.Function("custom", "F0", {"x"}, {"y"});
  FunctionNode(f0, "Relu", {"x"}, {"y"});
  for (int i = 1; i <= 20; ++i) {
    const std::string previous = "F" + std::to_string(i - 1);
    onnx::FunctionProto* f = m.Function("custom", "F" + std::to_string(i), {"x"}, {"y"});
    FunctionNode(f, previous, {"x"}, {"t"})->set_domain("custom");
    FunctionNode(f, previous, {"t"}, {"y"})->set_domain("custom");
  }
  m.Input("x", kFloat, {1});
  m.Node("F20", {"x"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {1});
  const std::string error = InlineError(m.proto());
  EXPECT_TRUE(Contains(error, "would add more than 1000000 nodes")) << error;

  // Two calls of F19 (524,288 each) add up past the limit as well.
  m.graph().mutable_node(0)->set_op_type("F19");
  m.Node("F19", {"y"}, {"z"})->set_domain("custom");
  m.graph().mutable_output(0)->set_name("z");
  EXPECT_TRUE(Contains(InlineError(m.proto()), "would add more than 1000000 nodes"));
}

TEST(FunctionInliner, TooManyCopiedEntriesAreRefused) {
  // No node limit here: 1,000 calls of a one-node function with 20,000
  // formal inputs bind 20 million names.
  TestModel m;
  onnx::FunctionProto* wide = m.Function("custom", "Wide", {"x"}, {"y"});
  for (int i = 1; i < 20'000; ++i) wide->add_input("unused" + std::to_string(i));
  FunctionNode(wide, "Relu", {"x"}, {"y"});
  m.Input("x", kFloat, {1});
  std::string value = "x";
  for (int i = 0; i < 1'000; ++i) {
    const std::string next = "v" + std::to_string(i);
    m.Node("Wide", {value}, {next})->set_domain("custom");
    value = next;
  }
  m.Output(value, kFloat, {1});
  const std::string error = InlineError(m.proto());
  EXPECT_TRUE(Contains(error, "would copy more than 16000000 input, output and attribute entries"))
      << error;
}

TEST(FunctionInliner, DeepNestingIsRefused) {
  TestModel m;
  constexpr int kDepth = kMaxFunctionNesting + 1;
  for (int i = 0; i < kDepth; ++i) {
    onnx::FunctionProto* f = m.Function("custom", "F" + std::to_string(i), {"x"}, {"y"});
    if (i + 1 < kDepth) {
      FunctionNode(f, "F" + std::to_string(i + 1), {"x"}, {"y"})->set_domain("custom");
    } else {
      FunctionNode(f, "Relu", {"x"}, {"y"});
    }
  }
  m.Input("x", kFloat, {1});
  m.Node("F0", {"x"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {1});
  const std::string error = InlineError(m.proto());
  EXPECT_TRUE(Contains(error, "nest more than 100 deep (starting at 'custom::F0')")) << error;

  // 100 deep loads.
  m.graph().mutable_node(0)->set_op_type("F1");
  EXPECT_EQ(LoadError(m.Serialize()), "");
  // F1's chain, measured first, is one too deep under F0.
  m.Node("F0", {"y"}, {"z"})->set_domain("custom");
  m.graph().mutable_output(0)->set_name("z");
  EXPECT_TRUE(
      Contains(InlineError(m.proto()), "nest more than 100 deep (starting at 'custom::F0')"))
      << InlineError(m.proto());
}

TEST(FunctionInliner, DomainsMustMatchAndDefaultDomainFunctionsAreInlined) {
  TestModel m;
  // A function in the default domain's namespace: called as "Twice" or
  // "ai.onnx::Twice".
  onnx::FunctionProto* twice = m.Function("", "Twice", {"x"}, {"y"});
  FunctionNode(twice, "Add", {"x", "x"}, {"y"});
  onnx::FunctionProto* thrice = m.Function("custom", "Thrice", {"x"}, {"y"});
  FunctionNode(thrice, "Add", {"x", "x"}, {"d"});
  FunctionNode(thrice, "Add", {"d", "x"}, {"y"});
  m.Input("x", kFloat, {1});
  m.Node("Twice", {"x"}, {"a"}, "plain");
  m.Node("Twice", {"a"}, {"b"}, "spelled")->set_domain("ai.onnx");
  m.Node("Thrice", {"b"}, {"c"}, "custom")->set_domain("custom");
  m.Output("c", kFloat, {1});
  // 1 → 2 → 4 → 12.
  EXPECT_EQ(Values(RunModel(m.Serialize(), {{"x", Floats({1})}})[0]), (std::vector<float>{12}));

  // Thrice called from the default domain, or Twice from "custom", is no
  // function: both stay unsupported ops.
  m.graph().mutable_node(2)->clear_domain();
  m.graph().mutable_node(0)->set_domain("custom");
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error, "2 unsupported op types")) << error;
  EXPECT_TRUE(Contains(error, "Thrice (node 'custom')")) << error;
  EXPECT_TRUE(Contains(error, "custom::Twice (node 'plain')")) << error;
}

TEST(FunctionInliner, OverloadsAreMatched) {
  TestModel m;
  onnx::FunctionProto* plus = m.Function("custom", "Op", {"x"}, {"y"});
  plus->set_overload("plus");
  FunctionNode(plus, "Add", {"x", "x"}, {"y"});
  onnx::FunctionProto* times = m.Function("custom", "Op", {"x"}, {"y"});
  times->set_overload("times");
  FunctionNode(times, "Mul", {"x", "x"}, {"y"});
  m.Input("x", kFloat, {1});
  onnx::NodeProto* first = m.Node("Op", {"x"}, {"a"});
  first->set_domain("custom");
  first->set_overload("times");
  onnx::NodeProto* second = m.Node("Op", {"a"}, {"b"});
  second->set_domain("custom");
  second->set_overload("plus");
  m.Output("b", kFloat, {1});
  // 3 → 9 → 18.
  EXPECT_EQ(Values(RunModel(m.Serialize(), {{"x", Floats({3})}})[0]), (std::vector<float>{18}));

  // No overload "minus": the node is an unsupported op.
  second->set_overload("minus");
  EXPECT_TRUE(Contains(LoadError(m.Serialize()), "custom::Op")) << LoadError(m.Serialize());
}

TEST(FunctionInliner, FunctionAtAnOpsetWhoseOpsDifferIsRefused) {
  // ReduceMean's definition changed at 18 (axes became an input); Sub's at
  // 14 only added element types, which the kernels read as they are.
  TestModel m(13);
  onnx::FunctionProto* mean = m.Function("custom", "Centre", {"x"}, {"y"}, /*opset=*/18);
  FunctionNode(mean, "ReduceMean", {"x"}, {"m"});
  FunctionNode(mean, "Sub", {"x", "m"}, {"y"});
  m.Input("x", kFloat, {2});
  m.Node("Centre", {"x"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {2});
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error,
                       "1 function at a default-domain opset whose ops differ from the "
                       "model's:\n  function 'custom::Centre' imports opset 18 of the "
                       "default domain, the model 13, and these ops differ between the "
                       "two: ReduceMean is version 18 at opset 18, version 13 at opset 13"))
      << error;
  EXPECT_FALSE(Contains(error, "Sub")) << error;

  // An op the model's opset does not have yet (Gelu: opset 20).
  TestModel newer(13);
  onnx::FunctionProto* gelu = newer.Function("custom", "G", {"x"}, {"y"}, /*opset=*/20);
  FunctionNode(gelu, "Gelu", {"x"}, {"y"});
  newer.Input("x", kFloat, {2});
  newer.Node("G", {"x"}, {"y"})->set_domain("custom");
  newer.Output("y", kFloat, {2});
  const std::string gelu_error = LoadError(newer.Serialize());
  EXPECT_TRUE(Contains(gelu_error, "Gelu is version 20 at opset 20, does not exist at opset 13"))
      << gelu_error;

  // A function opset Loom does not know.
  m.proto().mutable_functions(0)->mutable_opset_import(0)->set_version(25);
  EXPECT_TRUE(Contains(LoadError(m.Serialize()),
                       "imports opset 25 of the default domain, the "
                       "model 13; Loom reads opsets 1 to 24"))
      << LoadError(m.Serialize());
}

TEST(FunctionInliner, FunctionAtAnOpsetWithTheSameOpsLoads) {
  // Add's and Relu's definitions at opsets 15 and 16 are those of 14.
  TestModel m(15);
  onnx::FunctionProto* f = m.Function("custom", "AddRelu", {"a", "b"}, {"y"}, /*opset=*/16);
  FunctionNode(f, "Add", {"a", "b"}, {"s"});
  FunctionNode(f, "Relu", {"s"}, {"y"});
  m.Input("x", kFloat, {2});
  m.Node("AddRelu", {"x", "x"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {2});
  EXPECT_EQ(Values(RunModel(m.Serialize(), {{"x", Floats({-1, 2})}})[0]),
            (std::vector<float>{0, 4}));
}

TEST(FunctionInliner, FunctionAtAnOpsetWhoseOpsReadTheSameLoads) {
  // Sub and Mul are version 13 at opset 13 and 14 at 18: the later one only
  // added element types, so both read as they are.
  TestModel m(18);
  onnx::FunctionProto* f = m.Function("custom", "SubMul", {"a", "b"}, {"y"}, /*opset=*/13);
  FunctionNode(f, "Sub", {"a", "b"}, {"d"});
  FunctionNode(f, "Mul", {"d", "b"}, {"y"});
  m.Input("x", kFloat, {2});
  m.Input("w", kFloat, {2});
  m.Node("SubMul", {"x", "w"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {2});
  // (x - w) * w: (5 - 2) * 2 = 6, (1 - 3) * 3 = -6.
  EXPECT_EQ(Values(RunModel(m.Serialize(), {{"x", Floats({5, 1})}, {"w", Floats({2, 3})}})[0]),
            (std::vector<float>{6, -6}));
}

TEST(FunctionInliner, FunctionOnlyModelTakesTheFunctionsOpset) {
  TestModel m;
  m.proto().clear_opset_import();
  // Softmax at 11 coerces to 2-D, at 13 it is per axis: the functions'
  // opset (13) decides. Over the last axis both agree, so use axis 0 of a
  // [2, 2] input, where they differ: at 13 each column sums to 1.
  onnx::FunctionProto* f = m.Function("custom", "Soft", {"x"}, {"y"}, /*opset=*/13);
  SetInt(FunctionNode(f, "Softmax", {"x"}, {"y"}), "axis", 0);
  onnx::FunctionProto* g = m.Function("custom", "Double", {"x"}, {"y"}, /*opset=*/13);
  FunctionNode(g, "Add", {"x", "x"}, {"y"});
  m.Input("x", kFloat, {2, 2});
  m.Node("Soft", {"x"}, {"s"})->set_domain("custom");
  m.Node("Double", {"s"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {2, 2});
  ASSERT_EQ(m.proto().opset_import_size(), 1);  // "custom" only
  const Tensor out =
      RunModel(m.Serialize(), {{"x", Tensor::from_vector<float>({2, 2}, {0, 5, 0, 5})}})[0];
  // Columns [0, 0] and [5, 5]: softmax over axis 0 gives 0.5 each, doubled
  // (opset 11's [1, 4] coercion would mix the columns: e^0 / (2 + 2e^5)).
  for (float v : Values(out)) EXPECT_NEAR(v, 1.0f, 1e-6f);

  // Functions that disagree leave the model without one opset.
  m.proto().mutable_functions(1)->mutable_opset_import(0)->set_version(14);
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error,
                       "functions import different ones (custom::Soft 13, "
                       "custom::Double 14)"))
      << error;
}

TEST(FunctionInliner, CustomDomainNodeThatIsNoFunctionStaysUnsupported) {
  TestModel m;
  AddAddMul(m);
  m.Input("x", kFloat, {2});
  m.Node("AddMul", {"x", "x"}, {"u"}, "call")->set_domain("custom");
  m.Node("FusedThing", {"u"}, {"y"}, "fused")->set_domain("com.vendor");
  m.Output("y", kFloat, {2});
  const std::string error = LoadError(m.Serialize());
  EXPECT_TRUE(Contains(error, "1 unsupported op type:\n  com.vendor::FusedThing (node 'fused')"))
      << error;
}

TEST(FunctionInliner, MalformedFunctionsAreRefused) {
  const auto model = [](auto&& edit) {
    TestModel m;
    onnx::FunctionProto* f = AddAddMul(m);
    m.Input("x", kFloat, {2});
    onnx::NodeProto* call = m.Node("AddMul", {"x", "x"}, {"y"}, "call");
    call->set_domain("custom");
    m.Output("y", kFloat, {2});
    edit(m, f, call);
    return InlineError(m.proto());
  };
  EXPECT_TRUE(
      Contains(model([](TestModel& m, onnx::FunctionProto*, onnx::NodeProto*) { AddAddMul(m); }),
               "function 'custom::AddMul' is defined twice"));
  EXPECT_TRUE(Contains(
      model([](TestModel&, onnx::FunctionProto*, onnx::NodeProto* call) { call->add_input("x"); }),
      "node 'call' calls function 'custom::AddMul' with 3 inputs and 1 "
      "outputs; it takes 2 and 1"));
  EXPECT_TRUE(Contains(model([](TestModel&, onnx::FunctionProto* f, onnx::NodeProto*) {
                         f->mutable_node(1)->set_input(1, "elsewhere");
                       }),
                       "node 'mul' (Mul) reads 'elsewhere', which is neither an input of the "
                       "function nor produced in its body"));
  EXPECT_TRUE(Contains(model([](TestModel&, onnx::FunctionProto* f, onnx::NodeProto*) {
                         f->set_output(0, "nowhere");
                       }),
                       "output 0 ('nowhere') is not produced by any node of its body"));
  EXPECT_TRUE(Contains(model([](TestModel&, onnx::FunctionProto* f, onnx::NodeProto*) {
                         f->mutable_node(0)->set_output(0, "a");
                       }),
                       "node 'add' (Add) writes 'a', an input of the function"));
  EXPECT_TRUE(Contains(model([](TestModel&, onnx::FunctionProto* f, onnx::NodeProto*) {
                         f->add_opset_import()->set_version(14);
                       }),
                       "imports the default ONNX domain twice"));
}

// A function "custom.Branch"(c, x) -> y whose body ends in an If: both
// branches return Identity(`read`), a value of the function's scope. The
// caller's model calls it on inputs c (bool) and x (float [1]).
void BranchCallingModel(TestModel& m, onnx::FunctionProto* f, const char* read) {
  onnx::NodeProto* branch = FunctionNode(f, "If", {"c"}, {"y"}, "if");
  for (const char* name : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* attribute = branch->add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = attribute->mutable_g();
    onnx::NodeProto* inner = body->add_node();
    inner->set_op_type("Identity");
    inner->add_input(read);
    inner->add_output("out");
    body->add_output()->set_name("out");
  }
  m.Input("c", onnx::TensorProto::BOOL, {});
  m.Input("x", kFloat, {1});
  m.Node("Branch", {"c", "x"}, {"y"}, "b")->set_domain("custom");
  m.Output("y", kFloat, {1});
}

TEST(FunctionInliner, SubgraphInABodyReadsTheCallersValues) {
  TestModel m;
  onnx::FunctionProto* f = m.Function("custom", "Branch", {"c", "x"}, {"y"});
  BranchCallingModel(m, f, "x");  // the function's x, from the outer scope
  onnx::ModelProto model = m.proto();
  InlineFunctions(model);
  ASSERT_EQ(model.graph().node_size(), 1);
  EXPECT_EQ(model.graph().node(0).op_type(), "If");
  // The branches' reference to the function's x now names the caller's.
  EXPECT_EQ(model.graph().node(0).attribute(0).g().node(0).input(0), "x");
  EXPECT_EQ(LoadError(m.Serialize()), "");
}

TEST(FunctionInliner, SubgraphReadsOfRenamedBodyValuesAreRenamed) {
  // The branch reads the body's internal value "t", which inlining renames.
  TestModel m;
  onnx::FunctionProto* f = m.Function("custom", "Branch", {"c", "x"}, {"y"});
  FunctionNode(f, "Neg", {"x"}, {"t"});
  BranchCallingModel(m, f, "t");
  onnx::ModelProto model = m.proto();
  InlineFunctions(model);
  ASSERT_EQ(model.graph().node_size(), 2);
  const std::string neg_output = model.graph().node(0).output(0);
  EXPECT_NE(neg_output, "t");
  EXPECT_EQ(model.graph().node(1).attribute(0).g().node(0).input(0), neg_output);
  EXPECT_EQ(LoadError(m.Serialize()), "");
}

TEST(FunctionInliner, ModelWithoutCallsIsUntouched) {
  TestModel m;
  AddAddMul(m);
  m.Input("x", kFloat, {2});
  m.Node("Relu", {"x"}, {"y"});
  m.Output("y", kFloat, {2});
  onnx::ModelProto model = m.proto();
  EXPECT_TRUE(InlineFunctions(model).empty());
  EXPECT_EQ(model.SerializeAsString(), m.proto().SerializeAsString());
}

}  // namespace
}  // namespace loom::onnx_import::testing
