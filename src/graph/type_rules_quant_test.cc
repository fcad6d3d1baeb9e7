// Rules of the quantized ops (type_rules_quant.cc).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/type_inference_test_util.h"

namespace loom::graph {
namespace {

using testing::BuildErrorOf;
using testing::kF32;
using testing::OutputType;
using testing::OutputTypes;

constexpr DType kU8 = DType::kUInt8;
constexpr DType kI8 = DType::kInt8;

TEST(QuantizeLinearRule, DtypeFromZeroPointThenAttributeThenUint8) {
  {
    GraphBuilder b;
    const std::string x = b.input("x", kF32, {"N", 3});
    const std::string s = b.input("s", kF32, {});
    EXPECT_EQ(OutputType(b, b.op("QuantizeLinear", {x, s})), "uint8[N, 3]");
  }
  {
    GraphBuilder b;
    const std::string x = b.input("x", kF32, {2, 3});
    const std::string s = b.input("s", kF32, {});
    const std::string z = b.input("z", kI8, {});
    EXPECT_EQ(OutputType(b, b.op("QuantizeLinear", {x, s, z})), "int8[2, 3]");
  }
  {
    GraphBuilder b;
    const std::string x = b.input("x", kF32, {4});
    const std::string s = b.input("s", kF32, {});
    EXPECT_EQ(OutputType(b, b.op("QuantizeLinear", {x, s}, {{"output_dtype", int64_t{5}}})),
              "int16[4]");
  }
}

TEST(QuantizeLinearRule, Float8OutputIsNotSupported) {
  GraphBuilder b("g");
  const std::string x = b.input("x", kF32, {4});
  const std::string s = b.input("s", kF32, {});
  EXPECT_EQ(BuildErrorOf(b, b.op("QuantizeLinear", {x, s}, {{"output_dtype", int64_t{17}}}, "q")),
            "graph 'g': node 'q' (QuantizeLinear): output_dtype 17 is not supported");
}

TEST(DequantizeLinearRule, ScaleDtypeOrOutputDtype) {
  {
    GraphBuilder b;
    const std::string x = b.input("x", kU8, {"N", 5});
    const std::string s = b.input("s", DType::kFloat16, {5});
    const std::string z = b.input("z", kU8, {5});
    EXPECT_EQ(OutputType(b, b.op("DequantizeLinear", {x, s, z})), "float16[N, 5]");
  }
  {
    GraphBuilder b;
    const std::string x = b.input("x", DType::kInt32, {2});
    const std::string s = b.input("s", kF32, {});
    EXPECT_EQ(OutputType(b, b.op("DequantizeLinear", {x, s}, {{"output_dtype", int64_t{16}}})),
              "bfloat16[2]");
  }
  GraphBuilder b("g");
  const std::string x = b.input("x", kU8, {2});
  const std::string s = b.input("s", kF32, {});
  const std::string z = b.input("z", kI8, {});
  EXPECT_NE(BuildErrorOf(b, b.op("DequantizeLinear", {x, s, z}, {}, "dq")).find("node 'dq'"),
            std::string::npos);
}

TEST(DynamicQuantizeLinearRule, ThreeOutputs) {
  GraphBuilder b;
  const std::string x = b.input("x", kF32, {"N", 7});
  const std::vector<std::string> outs = b.op_multi("DynamicQuantizeLinear", {x}, 3);
  EXPECT_EQ(OutputTypes(b, outs),
            (std::vector<std::string>{"uint8[N, 7]", "float32[]", "uint8[]"}));
}

TEST(MatMulIntegerRule, Int32WithMatMulShapes) {
  GraphBuilder b;
  const std::string a = b.input("a", kU8, {"B", 4, 3});
  const std::string m = b.input("m", kI8, {3, 2});
  EXPECT_EQ(OutputType(b, b.op("MatMulInteger", {a, m})), "int32[B, 4, 2]");
  GraphBuilder bad("g");
  const std::string a2 = bad.input("a", kU8, {4, 3});
  const std::string m2 = bad.input("m", kU8, {5, 2});
  EXPECT_NE(BuildErrorOf(bad, bad.op("MatMulInteger", {a2, m2}, {}, "mm")).find("inner dim"),
            std::string::npos);
}

TEST(QLinearMatMulRule, DtypeOfOutputZeroPoint) {
  GraphBuilder b;
  const std::string a = b.input("a", kU8, {2, 2, 4});
  const std::string as = b.input("as", kF32, {});
  const std::string az = b.input("az", kU8, {});
  const std::string m = b.input("m", kI8, {2, 4, 3});
  const std::string ms = b.input("ms", kF32, {});
  const std::string mz = b.input("mz", kI8, {});
  const std::string ys = b.input("ys", kF32, {});
  const std::string yz = b.input("yz", kI8, {});
  EXPECT_EQ(OutputType(b, b.op("QLinearMatMul", {a, as, az, m, ms, mz, ys, yz})), "int8[2, 2, 3]");
}

TEST(ConvIntegerRule, ConvGeometry) {
  GraphBuilder b;
  const std::string x = b.input("x", kU8, {1, 1, 3, 3});
  const std::string w = b.input("w", kU8, {1, 1, 2, 2});
  EXPECT_EQ(
      OutputType(b, b.op("ConvInteger", {x, w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}})),
      "int32[1, 1, 4, 4]");
  GraphBuilder s;
  const std::string xs = s.input("x", kI8, {"N", 4, "H", 5});
  const std::string ws = s.input("w", kI8, {6, 2, 3, 3});
  EXPECT_EQ(OutputType(s, s.op("ConvInteger", {xs, ws}, {{"group", int64_t{2}}})),
            "int32[N, 6, ?, ?]");
  GraphBuilder bad("g");
  const std::string xb = bad.input("x", kU8, {1, 3, 5, 5});
  const std::string wb = bad.input("w", kU8, {2, 2, 3, 3});
  EXPECT_NE(BuildErrorOf(bad, bad.op("ConvInteger", {xb, wb}, {}, "c")).find("3 channels"),
            std::string::npos);
}

TEST(QLinearConvRule, DtypeOfOutputZeroPoint) {
  GraphBuilder b;
  const std::string x = b.input("x", kU8, {1, 1, 7, 7});
  const std::string xs = b.input("xs", kF32, {});
  const std::string xz = b.input("xz", kU8, {});
  const std::string w = b.input("w", kU8, {1, 1, 1, 1});
  const std::string ws = b.input("ws", kF32, {1});
  const std::string wz = b.input("wz", kU8, {1});
  const std::string ys = b.input("ys", kF32, {});
  const std::string yz = b.input("yz", kU8, {});
  EXPECT_EQ(OutputType(b, b.op("QLinearConv", {x, xs, xz, w, ws, wz, ys, yz},
                               {{"strides", std::vector<int64_t>{2, 2}}})),
            "uint8[1, 1, 4, 4]");
}

TEST(LoomQLinearAddRule, SharedShapeAndOutputZeroPointDtype) {
  GraphBuilder b;
  const std::string a = b.input("a", kU8, {1, 8, 5, 5});
  const std::string c = b.input("c", kI8, {1, 8, 5, 5});
  const std::string s = b.input("s", kF32, {});
  const std::string az = b.input("az", kU8, {});
  const std::string cz = b.input("cz", kI8, {1});
  const std::string yz = b.input("yz", kI8, {});
  EXPECT_EQ(OutputType(b, b.op("LoomQLinearAdd", {a, s, az, c, s, cz, s, yz})), "int8[1, 8, 5, 5]");

  // A dimension one side knows fills the other's symbol.
  GraphBuilder g;
  const std::string sym = g.input("sym", kU8, {"N", 8});
  const std::string known = g.input("known", kU8, {2, 8});
  const std::string gs = g.input("s", kF32, {});
  const std::string gz = g.input("z", kU8, {});
  EXPECT_EQ(OutputType(g, g.op("LoomQLinearAdd", {sym, gs, gz, known, gs, gz, gs, gz})),
            "uint8[2, 8]");

  GraphBuilder bad;
  const std::string x = bad.input("x", kU8, {1, 8, 5, 5});
  const std::string y = bad.input("y", kU8, {1, 8, 5, 1});
  const std::string bs = bad.input("s", kF32, {});
  const std::string bz = bad.input("z", kU8, {});
  EXPECT_NE(BuildErrorOf(bad, bad.op("LoomQLinearAdd", {x, bs, bz, y, bs, bz, bs, bz}, {}, "add"))
                .find("must have the same shape (no broadcasting)"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::graph
