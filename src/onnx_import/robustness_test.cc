// Malformed files never crash or hang the loader: every prefix of a small
// model, random byte corruption over many seeds, models with functions
// rewired at random, and hostile nesting either
// load (and then run or fail with a loom::Error) or fail with a clear error.
#include <gtest/gtest.h>

#include <iterator>
#include <limits>
#include <random>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;

// A ~300-byte opset-12 model touching initializers, Constant nodes, several
// attribute kinds and two opset rewrites.
TestModel SmallTestModel() {
  TestModel m(12);
  m.Input("x", kFloat, {"N", 4});
  m.Initializer(Tensor::from_vector<float>({4}, {1, -1, 2, -2}), "b");
  SetInts(m.Node("Constant", {}, {"shape"}), "value_ints", {-1, 2, 2});
  m.Node("Add", {"x", "b"}, {"a"}, "add");
  SetFloat(m.Node("LeakyRelu", {"a"}, {"l"}, "lrelu"), "alpha", 0.1f);
  m.Node("Reshape", {"l", "shape"}, {"r"}, "reshape");
  SetInt(m.Node("Softmax", {"r"}, {"s"}, "softmax"), "axis", 1);
  SetInt(SetInts(m.Node("ReduceSum", {"s"}, {"y"}, "sum"), "axes", {2}), "keepdims", 0);
  m.Output("y", kFloat, {"N", 2});
  return m;
}

std::string SmallModel() { return SmallTestModel().Serialize(); }

// A model made of function calls: custom::Block(x, b) => (y) calls
// custom::Act (LeakyRelu with alpha = @slope, default 0.2) and is called
// twice, once with the slope given.
TestModel FunctionTestModel() {
  TestModel m(13);
  onnx::FunctionProto* act = m.Function("custom", "Act", {"x"}, {"y"});
  SetRef(FunctionNode(act, "LeakyRelu", {"x"}, {"y"}, "lrelu"), "alpha",
         onnx::AttributeProto::FLOAT, "slope");
  onnx::AttributeProto* slope = act->add_attribute_proto();
  slope->set_name("slope");
  slope->set_type(onnx::AttributeProto::FLOAT);
  slope->set_f(0.2f);
  onnx::FunctionProto* block = m.Function("custom", "Block", {"x", "b"}, {"y", "unused"});
  block->add_attribute("s");
  FunctionNode(block, "Add", {"x", "b"}, {"t"}, "add");
  SetRef(FunctionNode(block, "Act", {"t"}, {"y"}, "act"), "slope", onnx::AttributeProto::FLOAT, "s")
      ->set_domain("custom");
  FunctionNode(block, "Neg", {"t"}, {"unused"});
  m.Input("x", kFloat, {"N", 4});
  m.Initializer(Tensor::from_vector<float>({4}, {1, -1, 2, -2}), "b");
  SetFloat(m.Node("Block", {"x", "b"}, {"h"}, "first"), "s", 0.5f)->set_domain("custom");
  m.Node("Block", {"h", "b"}, {"y"})->set_domain("custom");
  m.Output("y", kFloat, {"N", 4});
  return m;
}

// Loads `bytes`; if that works, runs the graph on ones (symbols bound to 1).
// Returns false (with a message) only for an error that is not a loom::Error.
::testing::AssertionResult LoadsOrFailsCleanly(const std::string& bytes, int* loaded = nullptr) {
  try {
    Graph graph = load_onnx_model_from_bytes(bytes, "", "fuzz.onnx");
    if (loaded != nullptr) ++*loaded;
    std::map<std::string, Tensor> feeds;
    for (const ValueInfo& input : graph.inputs) {
      std::vector<int64_t> dims;
      for (const Dim& d : input.type.shape.value_or(SymbolicShape{})) {
        dims.push_back(d.is_known() ? d.size() : 1);
      }
      const Shape shape(dims);
      if (shape.num_elements() > (1 << 20)) return ::testing::AssertionSuccess();
      feeds.emplace(input.name, Tensor(input.type.dtype, shape));
    }
    Session session(std::move(graph));
    session.run(feeds);
  } catch (const Error&) {
    // A clear, typed error: what the loader promises.
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "non-Loom exception: " << e.what();
  }
  return ::testing::AssertionSuccess();
}

TEST(OnnxRobustness, SmallModelLoadsAndRuns) {
  const std::string bytes = SmallModel();
  EXPECT_GT(bytes.size(), 200u);
  Session session(load_onnx_model_from_bytes(bytes));
  const std::vector<Tensor> out = session.run({{"x", Tensor(DType::kFloat32, Shape({3, 4}))}});
  // Per batch row: softmax over 4 values, summed in pairs → two halves that
  // add up to 1.
  ASSERT_EQ(out[0].shape(), Shape({3, 2}));
  EXPECT_NEAR(Values(out[0])[0] + Values(out[0])[1], 1.0f, 1e-6f);
}

TEST(OnnxRobustness, EveryPrefixFailsCleanly) {
  const std::string bytes = SmallModel();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_TRUE(LoadsOrFailsCleanly(bytes.substr(0, n))) << "prefix of " << n << " bytes";
  }
}

TEST(OnnxRobustness, RandomByteCorruptionFailsCleanly) {
  const std::string original = SmallModel();
  int loaded = 0;
  for (uint32_t seed = 0; seed < 3000; ++seed) {
    std::mt19937 rng(seed);
    std::string bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      const size_t at = rng() % bytes.size();
      bytes[at] = seed % 3 == 0 ? static_cast<char>(bytes[at] ^ (1 << (rng() % 8)))
                                : static_cast<char>(rng());
    }
    EXPECT_TRUE(LoadsOrFailsCleanly(bytes, &loaded)) << "seed " << seed;
  }
  // Some corruptions must survive parsing and checking, or this test would
  // only exercise protobuf.
  EXPECT_GT(loaded, 100) << loaded;
}

TEST(OnnxRobustness, HostileFieldValuesFailCleanly) {
  // Well-formed protobuf with hostile values in the fields that carry
  // numbers: attribute ints, initializer dims, input dims.
  const int64_t kValues[] = {std::numeric_limits<int64_t>::min(),
                             -(int64_t{1} << 40),
                             -3,
                             -1,
                             0,
                             1,
                             2,
                             3,
                             5,
                             int64_t{1} << 31,
                             int64_t{1} << 62,
                             std::numeric_limits<int64_t>::max()};
  int loaded = 0;
  for (uint32_t seed = 0; seed < 2000; ++seed) {
    std::mt19937 rng(seed);
    TestModel m = SmallTestModel();
    onnx::GraphProto& g = m.graph();
    const int64_t value = kValues[rng() % std::size(kValues)];
    switch (rng() % 4) {
      case 0: {  // an int or ints attribute
        onnx::NodeProto* node = g.mutable_node(static_cast<int>(rng() % g.node_size()));
        for (onnx::AttributeProto& a : *node->mutable_attribute()) {
          if (a.type() == onnx::AttributeProto::INT) a.set_i(value);
          if (a.type() == onnx::AttributeProto::INTS && a.ints_size() > 0) {
            a.set_ints(static_cast<int>(rng() % a.ints_size()), value);
          }
        }
        break;
      }
      case 1:  // the initializer's dims
        g.mutable_initializer(0)->set_dims(0, value);
        break;
      case 2:  // the input's fixed dimension
        g.mutable_input(0)
            ->mutable_type()
            ->mutable_tensor_type()
            ->mutable_shape()
            ->mutable_dim(1)
            ->set_dim_value(value);
        break;
      case 3:  // the output's dimension
        g.mutable_output(0)
            ->mutable_type()
            ->mutable_tensor_type()
            ->mutable_shape()
            ->mutable_dim(1)
            ->set_dim_value(value);
        break;
    }
    EXPECT_TRUE(LoadsOrFailsCleanly(m.Serialize(), &loaded)) << "seed " << seed;
  }
  EXPECT_GT(loaded, 0);
}

TEST(OnnxRobustness, FunctionModelCorruptionFailsCleanly) {
  const std::string original = FunctionTestModel().Serialize();
  EXPECT_TRUE(LoadsOrFailsCleanly(original));
  for (size_t n = 0; n < original.size(); ++n) {
    EXPECT_TRUE(LoadsOrFailsCleanly(original.substr(0, n))) << "prefix of " << n << " bytes";
  }
  int loaded = 0;
  for (uint32_t seed = 0; seed < 2000; ++seed) {
    std::mt19937 rng(seed);
    std::string bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      const size_t at = rng() % bytes.size();
      bytes[at] = static_cast<char>(rng());
    }
    EXPECT_TRUE(LoadsOrFailsCleanly(bytes, &loaded)) << "seed " << seed;
  }
  EXPECT_GT(loaded, 50) << loaded;
}

TEST(OnnxRobustness, HostileFunctionEditsFailCleanly) {
  // Well-formed protobuf whose functions are rewired at random: names that
  // dangle or collide, calls that recurse or pass too many values,
  // references to attributes that do not exist, odd opsets.
  const std::vector<std::string> kNames = {"",       "x",   "y",   "t",     "b",     "h",
                                           "unused", "zzz", "Act", "Block", "first", "first/t"};
  const std::vector<std::string> kOps = {"Act", "Block", "Relu", "Nothing"};
  const int64_t kOpsets[] = {-1, 0, 1, 7, 12, 13, 14, 18, 24, 25, int64_t{1} << 40};
  int loaded = 0;
  for (uint32_t seed = 0; seed < 2000; ++seed) {
    std::mt19937 rng(seed);
    TestModel m = FunctionTestModel();
    const auto pick = [&](const auto& options) { return options[rng() % std::size(options)]; };
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      onnx::FunctionProto* f = m.proto().mutable_functions(static_cast<int>(rng() % 2));
      onnx::NodeProto* body = f->mutable_node(static_cast<int>(rng() % f->node_size()));
      onnx::NodeProto* call = m.graph().mutable_node(static_cast<int>(rng() % 2));
      switch (rng() % 8) {
        case 0:
          if (body->input_size() > 0) body->set_input(0, pick(kNames));
          break;
        case 1:
          body->set_output(0, pick(kNames));
          break;
        case 2:  // a call of another function (maybe the enclosing one)
          body->set_op_type(pick(kOps));
          body->set_domain("custom");
          break;
        case 3:
          call->set_op_type(pick(kOps));
          break;
        case 4:
          if (rng() % 2) {
            call->add_input(pick(kNames));
          } else {
            call->add_output(pick(kNames));
          }
          break;
        case 5:
          if (rng() % 2) {
            f->set_input(0, pick(kNames));
          } else {
            f->set_output(0, pick(kNames));
          }
          break;
        case 6:  // a reference to some attribute, of some type
          for (onnx::AttributeProto& a : *body->mutable_attribute()) {
            a.set_ref_attr_name(pick(kNames));
            a.set_type(rng() % 2 ? onnx::AttributeProto::INT : onnx::AttributeProto::FLOAT);
          }
          break;
        case 7:
          f->mutable_opset_import(0)->set_version(pick(kOpsets));
          break;
      }
    }
    EXPECT_TRUE(LoadsOrFailsCleanly(m.Serialize(), &loaded)) << "seed " << seed;
  }
  EXPECT_GT(loaded, 0);
}

TEST(OnnxRobustness, RandomGarbageFailsCleanly) {
  for (uint32_t seed = 0; seed < 500; ++seed) {
    std::mt19937 rng(seed);
    std::string bytes(1 + rng() % 512, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    EXPECT_TRUE(LoadsOrFailsCleanly(bytes)) << "seed " << seed;
  }
}

TEST(OnnxRobustness, DeeplyNestedSubgraphsAreRefused) {
  // 1000 nested GRAPH attributes: past protobuf's recursion limit (100), so
  // parsing stops instead of recursing deeper.
  TestModel m;
  m.Input("x", kFloat, {1});
  onnx::NodeProto* node = m.Node("Identity", {"x"}, {"y"});
  m.Output("y", kFloat, {1});
  onnx::NodeProto* current = node;
  for (int depth = 0; depth < 1000; ++depth) {
    onnx::AttributeProto* attribute = current->add_attribute();
    attribute->set_name("g");
    attribute->set_type(onnx::AttributeProto::GRAPH);
    current = attribute->mutable_g()->add_node();
    current->set_op_type("Identity");
  }
  EXPECT_THROW(load_onnx_model_from_bytes(m.Serialize()), InvalidArgumentError);
}

TEST(OnnxRobustness, HugeDeclaredDimsDoNotAllocate) {
  TestModel m;
  m.Input("x", kFloat, {1});
  onnx::TensorProto* w = m.graph().add_initializer();
  w->set_name("w");
  w->set_data_type(kFloat);
  w->add_dims(int64_t{1} << 30);
  w->add_dims(int64_t{1} << 30);
  m.Node("Add", {"x", "w"}, {"y"});
  m.Output("y", kFloat, {});
  EXPECT_THROW(load_onnx_model_from_bytes(m.Serialize()), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::onnx_import::testing
