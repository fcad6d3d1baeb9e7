// Constant, ConstantOfShape, Range, Shape and Size rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::Ints;
using testing::kF32;
using testing::kF64;
using testing::kI32;
using testing::kI64;
using testing::OutputType;
using testing::OutputTypes;

TEST(ShapeRule, LengthFromStartAndEnd) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 4});
  EXPECT_EQ(OutputTypes(b, {b.op("Shape", {x}), b.op("Shape", {x}, {{"start", int64_t{1}}}),
                            b.op("Shape", {x}, {{"start", int64_t{-1}}}),
                            b.op("Shape", {x}, {{"end", int64_t{-1}}}),
                            b.op("Shape", {x}, {{"start", int64_t{5}}}), b.op("Size", {x})}),
            (std::vector<std::string>{"int64[3]", "int64[2]", "int64[1]", "int64[2]", "int64[0]",
                                      "int64[]"}));
}

TEST(ConstantRule, EachAttributeForm) {
  GraphBuilder b;
  EXPECT_EQ(OutputTypes(b, {b.op("Constant", {}, {{"value", Tensor(kF64, Shape({2, 2}))}}),
                            b.op("Constant", {}, {{"value_float", 1.5f}}),
                            b.op("Constant", {}, {{"value_floats", std::vector<float>{1, 2, 3}}}),
                            b.op("Constant", {}, {{"value_int", int64_t{4}}}),
                            b.op("Constant", {}, {{"value_ints", std::vector<int64_t>{1, 2}}})}),
            (std::vector<std::string>{"float64[2, 2]", "float32[]", "float32[3]", "int64[]",
                                      "int64[2]"}));
}

TEST(ConstantRule, NeedsExactlyOneValue) {
  GraphBuilder b("g");
  EXPECT_EQ(BuildErrorOf(
                b, b.op("Constant", {}, {{"value_int", int64_t{1}}, {"value_float", 1.0f}}, "c")),
            "graph 'g': node 'c' (Constant): expected exactly one of the attributes value, "
            "value_float, value_floats, value_int, value_ints, value_string, value_strings (got "
            "2)");
}

TEST(ConstantOfShapeRule, ShapeFromAConstantAndDTypeFromValue) {
  GraphBuilder b;
  const std::string shape = b.constant(Ints({2, 3}), "shape");
  const Tensor seven = Tensor::from_vector(Shape({1}), std::vector<int32_t>{7});
  EXPECT_EQ(OutputTypes(b, {b.op("ConstantOfShape", {shape}, {{"value", seven}}),
                            b.op("ConstantOfShape", {shape})}),
            (std::vector<std::string>{"int32[2, 3]", "float32[2, 3]"}));
}

TEST(ConstantOfShapeRule, NonConstantShapeOfKnownLength) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 3, 4});
  EXPECT_EQ(OutputType(b, b.op("ConstantOfShape", {b.op("Shape", {x})})), "float32[?, ?, ?]");
}

TEST(ConstantOfShapeRule, BadValueOrShapeThrows) {
  {
    GraphBuilder b("g");
    const std::string shape = b.constant(Ints({2, -1}), "shape");
    EXPECT_EQ(BuildErrorOf(b, b.op("ConstantOfShape", {shape}, {}, "cos")),
              "graph 'g': node 'cos' (ConstantOfShape): input 'shape' int64[2] = [2, -1] has a "
              "negative dimension");
  }
  GraphBuilder b("g");
  const std::string shape = b.constant(Ints({2}), "shape");
  EXPECT_EQ(BuildErrorOf(
                b, b.op("ConstantOfShape", {shape}, {{"value", Tensor(kF32, Shape({2}))}}, "cos")),
            "graph 'g': node 'cos' (ConstantOfShape): attribute 'value' must hold exactly 1 "
            "element (got shape [2])");
}

template <typename T>
std::string RangeType(T start, T limit, T delta) {
  GraphBuilder b("g");
  std::vector<std::string> inputs;
  for (T v : {start, limit, delta}) {
    inputs.push_back(b.constant(Tensor::from_vector(Shape(), std::vector<T>{v})));
  }
  const std::string y = b.op("Range", inputs, {}, "range");
  b.output(y);
  try {
    Graph g = b.build();
    InferTypes(g);
    return testing::Render(g.value_types.at(y));
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
}

TEST(RangeRule, CountFromConstantInputs) {
  EXPECT_EQ(RangeType<int64_t>(0, 10, 3), "int64[4]");              // 0 3 6 9
  EXPECT_EQ(RangeType<int32_t>(10, 0, -4), "int32[3]");             // 10 6 2
  EXPECT_EQ(RangeType<int16_t>(-32768, 32767, 16384), "int16[4]");  // -32768 -16384 0 16384
  EXPECT_EQ(RangeType<int64_t>(5, 5, 1), "int64[0]");
  EXPECT_EQ(RangeType<float>(0.0f, 1.0f, 0.25f), "float32[4]");  // 0 .25 .5 .75
  EXPECT_EQ(RangeType<double>(1.0, 0.0, 0.5), "float64[0]");
  EXPECT_EQ(RangeType<int64_t>(0, 1, 0),
            "graph 'g': node 'range' (Range): input 'const_2' int64[] must not be 0");
}

TEST(RangeRule, NonConstantInputsGiveAnUnknownLength) {
  GraphBuilder b;
  const std::string n = b.input("n", kI64, {});
  const std::string zero = b.constant(Tensor(kI64, Shape()), "zero");
  const std::string one = b.constant(Tensor::from_vector(Shape(), std::vector<int64_t>{1}), "one");
  EXPECT_EQ(OutputType(b, b.op("Range", {zero, n, one})), "int64[?]");
}

TEST(RangeRule, InputsMustShareADType) {
  GraphBuilder b("g");
  const std::string s = b.input("s", kI32, {});
  const std::string l = b.input("l", kI64, {});
  EXPECT_EQ(BuildErrorOf(b, b.op("Range", {s, l, s}, {}, "range")),
            "graph 'g': node 'range' (Range): inputs 's' int32[] and 'l' int64[] must have the "
            "same dtype");
}

}  // namespace
}  // namespace loom::graph
