// Sequence and optional values end to end: ONNX sequence_type and
// optional_type TypeProtos imported for graph inputs, outputs and subgraph
// values, run by sessions, and written back. Expected values are written
// out by hand.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "onnx_import/testing/test_model.h"

namespace loom::onnx_import::testing {
namespace {

constexpr auto kFloat = onnx::TensorProto::FLOAT;
constexpr auto kInt64 = onnx::TensorProto::INT64;
constexpr auto kBool = onnx::TensorProto::BOOL;

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  return Tensor::from_vector(Shape(std::move(dims)), values);
}
Tensor Int64(int64_t value) { return Tensor::from_vector(Shape(), std::vector<int64_t>{value}); }
Tensor Bool(bool value) { return Tensor::from_vector(Shape(), std::vector<bool>{value}); }

std::vector<float> Data(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.num_elements());
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

SessionOptions Threads(int intra) {
  SessionOptions options;
  options.use_private_thread_pools = true;
  options.intra_op_threads = intra;
  options.inter_op_threads = 1;
  return options;
}

onnx::TypeProto* TensorTypeOf(onnx::TypeProto* type, int32_t elem_type,
                              const std::vector<TestDim>& dims, bool has_shape) {
  onnx::TypeProto::Tensor* tensor = type->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  if (has_shape) {
    onnx::TensorShapeProto* shape = tensor->mutable_shape();
    for (const TestDim& dim : dims) {
      onnx::TensorShapeProto::Dimension* d = shape->add_dim();
      if (!dim.symbol.empty()) {
        d->set_dim_param(dim.symbol);
      } else if (dim.size >= 0) {
        d->set_dim_value(dim.size);
      }
    }
  }
  return type;
}

// seq(elem_type[dims]) (no shape when `dims` is empty and !has_shape).
void SetSequence(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                 const std::vector<TestDim>& dims = {}, bool has_shape = false) {
  info->set_name(name);
  TensorTypeOf(info->mutable_type()->mutable_sequence_type()->mutable_elem_type(), elem_type, dims,
               has_shape);
}

void SetOptional(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                 bool of_sequence, const std::vector<TestDim>& dims = {}, bool has_shape = false) {
  info->set_name(name);
  onnx::TypeProto* held = info->mutable_type()->mutable_optional_type()->mutable_elem_type();
  if (of_sequence) held = held->mutable_sequence_type()->mutable_elem_type();
  TensorTypeOf(held, elem_type, dims, has_shape);
}

// s: seq(float32[N]), o: optional(float32[2]) →
//   first = SequenceAt(s, 0), count = SequenceLength(s),
//   has = OptionalHasElement(o), o_out = Identity(o), s_out = Identity(s)
std::string SequenceAndOptionalIoModel() {
  TestModel m(18);
  SetSequence(m.graph().add_input(), "s", kFloat, {"N"}, true);
  SetOptional(m.graph().add_input(), "o", kFloat, false, {2}, true);
  m.Initializer(Tensor::from_vector<int64_t>(Shape(), {0}), "zero");
  m.Node("SequenceAt", {"s", "zero"}, {"first"});
  m.Node("SequenceLength", {"s"}, {"count"});
  m.Node("OptionalHasElement", {"o"}, {"has"});
  m.Node("Identity", {"o"}, {"o_out"});
  m.Node("Identity", {"s"}, {"s_out"});
  m.UntypedOutput("first");
  m.Output("count", kInt64, {});
  m.Output("has", kBool, {});
  SetOptional(m.graph().add_output(), "o_out", kFloat, false, {2}, true);
  SetSequence(m.graph().add_output(), "s_out", kFloat);
  return m.Serialize();
}

TEST(SequenceImport, GraphInputsAndOutputsKeepTheirKinds) {
  const Graph graph = load_onnx_model_from_bytes(SequenceAndOptionalIoModel());
  EXPECT_EQ(graph.inputs[0].type.to_string(), "seq(float32[N])");
  EXPECT_EQ(graph.inputs[1].type.to_string(), "optional(float32[2])");
  Session session(graph);
  EXPECT_EQ(session.outputs()[3].type.to_string(), "optional(float32[2])");
  EXPECT_EQ(session.outputs()[4].type.kind, ValueKind::kSequence);

  const Value s = Value::Sequence(DType::kFloat32, {Floats({3}, {1, 2, 3}), Floats({2}, {4, 5})});
  std::vector<Value> out = session.run_values({{"s", s}, {"o", Floats({2}, {6, 7})}});
  EXPECT_EQ(Data(out[0].tensor()), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(out[1].tensor().data<int64_t>()[0], 2);
  EXPECT_TRUE(out[2].tensor().data<bool>()[0]);
  EXPECT_EQ(Data(out[3].tensor()), (std::vector<float>{6, 7}));
  ASSERT_EQ(out[4].elements().size(), 2u);
  EXPECT_EQ(Data(out[4].elements()[1]), (std::vector<float>{4, 5}));

  std::vector<Value> empty = session.run_values({{"s", s}, {"o", Value::None()}});
  EXPECT_FALSE(empty[2].tensor().data<bool>()[0]);
  EXPECT_TRUE(empty[3].is_none());
}

TEST(SequenceImport, OptionalTypeAttributeMakesAnEmptyOptional) {
  TestModel m(18);
  m.Input("x", kFloat, {1});
  onnx::NodeProto* node = m.Node("Optional", {}, {"none"});
  onnx::AttributeProto* type = node->add_attribute();
  type->set_name("type");
  type->set_type(onnx::AttributeProto::TYPE_PROTO);
  TensorTypeOf(type->mutable_tp()->mutable_sequence_type()->mutable_elem_type(), kInt64, {}, false);
  m.Node("OptionalHasElement", {"none"}, {"has"});
  m.Node("Identity", {"x"}, {"y"});
  m.Output("has", kBool, {});
  m.Output("y", kFloat, {1});
  const Graph graph = load_onnx_model_from_bytes(m.Serialize());
  Session session(graph);
  EXPECT_EQ(session.graph().value_types.at("none").to_string(), "optional(seq(int64[?]))");
  EXPECT_FALSE(session.run({{"x", Floats({1}, {0})}})[0].data<bool>()[0]);

  // Written back, the type is ONNX's TYPE_PROTO again (no Loom domain).
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(save_onnx_model_to_bytes(graph)));
  bool found = false;
  for (const onnx::NodeProto& n : written.graph().node()) {
    if (n.op_type() != "Optional") continue;
    found = true;
    EXPECT_EQ(n.domain(), "");
    ASSERT_EQ(n.attribute_size(), 1);
    EXPECT_EQ(n.attribute(0).type(), onnx::AttributeProto::TYPE_PROTO);
    EXPECT_EQ(n.attribute(0).tp().sequence_type().elem_type().tensor_type().elem_type(), kInt64);
  }
  EXPECT_TRUE(found);
  Session again(load_onnx_model_from_bytes(written.SerializeAsString()));
  EXPECT_FALSE(again.run({{"x", Floats({1}, {0})}})[0].data<bool>()[0]);
}

// Loop(M, "", rows0 = SequenceEmpty) with body rows' = SequenceInsert(rows,
// x * i) (x captured); then ConcatFromSequence(rows, axis 0).
std::string LoopCarryingASequenceModel() {
  TestModel m(13);
  m.Input("M", kInt64, {});
  m.Input("x", kFloat, {2});
  TestModel body;
  body.Input("i", kInt64, {});
  body.Input("c", kBool, {});
  SetSequence(body.graph().add_input(), "rows", kFloat);
  SetInt(body.Node("Cast", {"i"}, {"fi"}), "to", kFloat);
  body.Node("Mul", {"x", "fi"}, {"scaled"});
  body.Node("SequenceInsert", {"rows", "scaled"}, {"rows_next"});
  body.Node("Identity", {"c"}, {"c_next"});
  body.Output("c_next", kBool, {});
  SetSequence(body.graph().add_output(), "rows_next", kFloat);
  m.Node("SequenceEmpty", {}, {"rows0"});
  SetGraph(m.Node("Loop", {"M", "", "rows0"}, {"rows"}, "loop"), "body", body.graph());
  SetInt(m.Node("ConcatFromSequence", {"rows"}, {"y"}), "axis", 0);
  SetSequence(m.graph().add_output(), "rows", kFloat);
  m.UntypedOutput("y");
  return m.Serialize();
}

TEST(SequenceImport, LoopCarriesASequenceAtOneAndThreeThreads) {
  for (int threads : {1, 3}) {
    Session session(load_onnx_model_from_bytes(LoopCarryingASequenceModel()), Threads(threads));
    std::vector<Value> out = session.run_values({{"M", Int64(3)}, {"x", Floats({2}, {1, 10})}});
    ASSERT_EQ(out[0].elements().size(), 3u) << threads;
    // Rows x * 0, x * 1, x * 2, concatenated.
    EXPECT_EQ(Data(out[1].tensor()), (std::vector<float>{0, 0, 1, 10, 2, 20})) << threads;
  }
}

TEST(SequenceImport, IfReturnsAnOptional) {
  TestModel m(18);
  m.Input("c", kBool, {});
  m.Input("x", kFloat, {2});
  TestModel then_branch;
  then_branch.Node("Optional", {"x"}, {"full"});
  SetOptional(then_branch.graph().add_output(), "full", kFloat, false, {2}, true);
  TestModel else_branch;
  onnx::NodeProto* empty = else_branch.Node("Optional", {}, {"empty"});
  onnx::AttributeProto* type = empty->add_attribute();
  type->set_name("type");
  type->set_type(onnx::AttributeProto::TYPE_PROTO);
  TensorTypeOf(type->mutable_tp(), kFloat, {}, false);
  SetOptional(else_branch.graph().add_output(), "empty", kFloat, false);
  onnx::NodeProto* node = m.Node("If", {"c"}, {"o"}, "if");
  SetGraph(node, "then_branch", then_branch.graph());
  SetGraph(node, "else_branch", else_branch.graph());
  SetOptional(m.graph().add_output(), "o", kFloat, false);
  Session session(load_onnx_model_from_bytes(m.Serialize()));
  EXPECT_EQ(session.outputs()[0].type.kind, ValueKind::kOptionalTensor);
  const Tensor x = Floats({2}, {3, 4});
  EXPECT_EQ(Data(session.run_values({{"c", Bool(true)}, {"x", x}})[0].tensor()),
            (std::vector<float>{3, 4}));
  EXPECT_TRUE(session.run_values({{"c", Bool(false)}, {"x", x}})[0].is_none());
}

TEST(SequenceImport, WrittenSequenceTypesLoadAgain) {
  const Graph graph = load_onnx_model_from_bytes(LoopCarryingASequenceModel());
  const Graph again = load_onnx_model_from_bytes(save_onnx_model_to_bytes(graph));
  Session session(again);
  EXPECT_EQ(session.outputs()[0].type.kind, ValueKind::kSequence);
  std::vector<Value> out = session.run_values({{"M", Int64(2)}, {"x", Floats({2}, {1, 2})}});
  EXPECT_EQ(Data(out[1].tensor()), (std::vector<float>{0, 0, 1, 2}));
}

TEST(SequenceImport, SequencesOfSequencesAreRefusedClearly) {
  TestModel m(18);
  onnx::ValueInfoProto* input = m.graph().add_input();
  input->set_name("ss");
  TensorTypeOf(input->mutable_type()
                   ->mutable_sequence_type()
                   ->mutable_elem_type()
                   ->mutable_sequence_type()
                   ->mutable_elem_type(),
               kFloat, {}, false);
  m.Node("SequenceLength", {"ss"}, {"n"});
  m.Output("n", kInt64, {});
  try {
    load_onnx_model_from_bytes(m.Serialize());
    ADD_FAILURE() << "a sequence of sequences loaded";
  } catch (const InvalidArgumentError& e) {
    EXPECT_TRUE(Contains(e.what(), "graph input 'ss' is a sequence of non-tensors")) << e.what();
  }
}

}  // namespace
}  // namespace loom::onnx_import::testing
