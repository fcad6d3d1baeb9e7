// String tensors: the text operators, string Cast, and the generic operators
// that take strings through the registry. Every expected value is written
// out by hand (Python's str methods and NumPy's astype(str) give the same).
#include "kernels/strings/string_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"
#include "threading/thread_pool.h"

namespace loom::kernels {
namespace {

using Strings = std::vector<std::string>;

Tensor Str(Shape shape, Strings values) { return Tensor::from_vector(std::move(shape), values); }

Strings Values(const Tensor& t) { return testing::TensorValues<std::string>(t); }

// Runs `op` through the registry (so the string wrappers are what is tested).
std::vector<Tensor> RunOp(std::string_view op, std::vector<const Tensor*> inputs,
                          const Attributes& attrs = {}, threading::ThreadPool* pool = nullptr) {
  const KernelRegistration* kernel = FindKernel(op);
  EXPECT_NE(kernel, nullptr) << op;
  KernelContext ctx;
  ctx.pool = pool;
  return RunKernel(*kernel, ctx, attrs, inputs);
}

std::string ErrorOf(std::string_view op, std::vector<const Tensor*> inputs,
                    const Attributes& attrs = {}) {
  return testing::ErrorMessageOf([&] { RunOp(op, inputs, attrs); });
}

TEST(StringTensor, ElementsAreStringsAndCloneCopiesThem) {
  Tensor a = Str({2}, {"one", std::string(100, 'x')});
  Tensor b = a.clone();
  a.data<std::string>()[0] = "changed";
  EXPECT_EQ(Values(b), (Strings{"one", std::string(100, 'x')}));
  Tensor fresh(DType::kString, {3});
  EXPECT_EQ(Values(fresh), (Strings{"", "", ""}));
  Tensor uninit = Tensor::uninitialized(DType::kString, {2});
  EXPECT_EQ(Values(uninit), (Strings{"", ""}));
  EXPECT_EQ(dtype_name(DType::kString), "string");
}

TEST(StringTensor, CannotBorrowExternalMemory) {
  std::string storage[1];
  EXPECT_THROW(Tensor::from_external(DType::kString, {1}, storage, nullptr), InvalidArgumentError);
}

TEST(StringConcat, BroadcastsAndKeepsUtf8) {
  const Tensor x = Str({2, 1}, {"a", "é"});
  const Tensor y = Str({3}, {"1", "", "ü"});
  const Tensor z = RunOp("StringConcat", {&x, &y})[0];
  EXPECT_EQ(z.shape(), Shape({2, 3}));
  EXPECT_EQ(Values(z), (Strings{"a1", "a", "aü", "é1", "é", "éü"}));
  const Tensor s = Str({}, {"cat"});
  const Tensor t = Str({}, {"s"});
  const Tensor scalar = RunOp("StringConcat", {&s, &t})[0];
  EXPECT_EQ(scalar.shape(), Shape({}));
  EXPECT_EQ(Values(scalar), (Strings{"cats"}));
}

TEST(StringConcat, RefusesOtherDtypesAndClashingShapes) {
  const Tensor x = Str({2}, {"a", "b"});
  const Tensor n = Tensor::from_vector(Shape({2}), std::vector<int64_t>{1, 2});
  EXPECT_NE(ErrorOf("StringConcat", {&x, &n}).find("StringConcat"), std::string::npos);
  const Tensor three = Str({3}, {"a", "b", "c"});
  EXPECT_NE(ErrorOf("StringConcat", {&x, &three}), "no error");
}

TEST(StringSplit, OnADelimiterLikePython) {
  // "a--b----c".split("--") == ["a", "b", "", "c"]; "".split("--") == [""].
  const Tensor x = Str({3}, {"a--b----c", "", "--"});
  Attributes attrs;
  attrs.set("delimiter", std::string("--"));
  const std::vector<Tensor> out = RunOp("StringSplit", {&x}, attrs);
  EXPECT_EQ(out[0].shape(), Shape({3, 4}));
  EXPECT_EQ(Values(out[0]), (Strings{"a", "b", "", "c", "", "", "", "", "", "", "", ""}));
  EXPECT_EQ(testing::TensorValues<int64_t>(out[1]), (std::vector<int64_t>{4, 1, 2}));
}

TEST(StringSplit, OnWhitespaceWithMaxsplitKeepsTheRest) {
  // "  a b  c ".split(None, 1) == ["a", "b  c "]; "   ".split() == [].
  const Tensor x = Str({2, 1}, {"  a b  c ", "   "});
  Attributes attrs;
  attrs.set("maxsplit", int64_t{1});
  const std::vector<Tensor> out = RunOp("StringSplit", {&x}, attrs);
  EXPECT_EQ(out[0].shape(), Shape({2, 1, 2}));
  EXPECT_EQ(Values(out[0]), (Strings{"a", "b  c ", "", ""}));
  EXPECT_EQ(out[1].shape(), Shape({2, 1}));
  EXPECT_EQ(testing::TensorValues<int64_t>(out[1]), (std::vector<int64_t>{2, 0}));
}

TEST(StringSplit, MaxsplitZeroAndNegativeAndEmptyInput) {
  const Tensor x = Str({1}, {"a,b,c"});
  Attributes zero;
  zero.set("delimiter", std::string(","));
  zero.set("maxsplit", int64_t{0});
  EXPECT_EQ(Values(RunOp("StringSplit", {&x}, zero)[0]), (Strings{"a,b,c"}));
  Attributes negative;
  negative.set("maxsplit", int64_t{-1});
  EXPECT_NE(ErrorOf("StringSplit", {&x}, negative).find("maxsplit"), std::string::npos);
  const Tensor empty(DType::kString, {0});
  const std::vector<Tensor> out = RunOp("StringSplit", {&empty});
  EXPECT_EQ(out[0].shape(), Shape({0, 0}));
  EXPECT_EQ(out[1].shape(), Shape({0}));
}

TEST(StringNormalizer, StopwordsThenCaseWithUnicodeMapping) {
  const Tensor x = Str({5}, {"Été", "été", "ÀÉÎ", "straße", "Σοφία"});
  Attributes attrs;
  attrs.set("case_change_action", std::string("UPPER"));
  attrs.set("stopwords", std::vector<std::string>{"ÉTÉ"});  // case-insensitive by default
  const Tensor out = RunOp("StringNormalizer", {&x}, attrs)[0];
  // Simple case mapping: ß has no single-character uppercase and stays.
  EXPECT_EQ(Values(out), (Strings{"ÀÉÎ", "STRAßE", "ΣΟΦΊΑ"}));
  Attributes lower;
  lower.set("case_change_action", std::string("LOWER"));
  lower.set("is_case_sensitive", int64_t{1});
  lower.set("stopwords", std::vector<std::string>{"été"});
  EXPECT_EQ(Values(RunOp("StringNormalizer", {&x}, lower)[0]),
            (Strings{"été", "àéî", "straße", "σοφία"}));
}

TEST(StringNormalizer, EverythingDroppedGivesOneEmptyString) {
  const Tensor x = Str({1, 2}, {"a", "A"});
  Attributes attrs;
  attrs.set("stopwords", std::vector<std::string>{"a"});
  const Tensor out = RunOp("StringNormalizer", {&x}, attrs)[0];
  EXPECT_EQ(out.shape(), Shape({1, 1}));
  EXPECT_EQ(Values(out), (Strings{""}));
}

TEST(StringNormalizer, RefusesBadShapesActionsUtf8AndTurkish) {
  const Tensor square = Str({2, 2}, {"a", "b", "c", "d"});
  EXPECT_NE(ErrorOf("StringNormalizer", {&square}).find("[C] or [1, C]"), std::string::npos);
  const Tensor x = Str({1}, {"a"});
  Attributes bad_action;
  bad_action.set("case_change_action", std::string("TITLE"));
  EXPECT_NE(ErrorOf("StringNormalizer", {&x}, bad_action).find("TITLE"), std::string::npos);
  const Tensor invalid = Str({1}, {std::string("a\xff", 2)});
  Attributes upper;
  upper.set("case_change_action", std::string("UPPER"));
  EXPECT_NE(ErrorOf("StringNormalizer", {&invalid}, upper).find("UTF-8"), std::string::npos);
  Attributes turkish;
  turkish.set("locale", std::string("tr_TR"));
  EXPECT_NE(ErrorOf("StringNormalizer", {&x}, turkish).find("tr_TR"), std::string::npos);
}

TEST(RegexFullMatch, MatchesWholeElementsOnly) {
  const Tensor x = Str({4}, {"www.example.com", "see www.example.com", "www.x.org", ""});
  Attributes attrs;
  attrs.set("pattern", std::string(R"(www\.[\w.-]+\.com)"));
  const Tensor out = RunOp("RegexFullMatch", {&x}, attrs)[0];
  EXPECT_EQ(out.dtype(), DType::kBool);
  EXPECT_EQ(testing::TensorValues<bool>(out), (std::vector<bool>{true, false, false, false}));
}

TEST(RegexFullMatch, HostilePatternsAreLinearAndBadOnesAreErrors) {
  // (a+)+$ backtracks exponentially in a backtracking engine; RE2 is linear.
  // Appended, not `std::string(100000, 'a') + "b"`: GCC 12 at -O1 warns a
  // false -Warray-bounds on that concatenation (GCC bug 105651).
  std::string text(100000, 'a');
  text += 'b';
  const Tensor x = Str({1}, {text});
  Attributes hostile;
  hostile.set("pattern", std::string("(a+)+$"));
  EXPECT_EQ(testing::TensorValues<bool>(RunOp("RegexFullMatch", {&x}, hostile)[0]),
            (std::vector<bool>{false}));
  Attributes broken;
  broken.set("pattern", std::string("(unclosed"));
  EXPECT_NE(ErrorOf("RegexFullMatch", {&x}, broken).find("not valid RE2"), std::string::npos);
}

TEST(StringCodes, DataMovementOpsCarryStrings) {
  const Tensor x = Str({2, 3}, {"b", "a", "c", "a", "", "zz"});
  const Tensor indices = Tensor::from_vector(Shape({2}), std::vector<int64_t>{2, 0});
  Attributes axis1;
  axis1.set("axis", int64_t{1});
  EXPECT_EQ(Values(RunOp("Gather", {&x, &indices}, axis1)[0]), (Strings{"c", "b", "zz", "a"}));
  EXPECT_EQ(Values(RunOp("Transpose", {&x})[0]), (Strings{"b", "a", "a", "", "c", "zz"}));
  const Tensor y = Str({1, 3}, {"q", "r", "s"});
  Attributes axis0;
  axis0.set("axis", int64_t{0});
  const Tensor joined = RunOp("Concat", {&x, &y}, axis0)[0];
  EXPECT_EQ(joined.shape(), Shape({3, 3}));
  EXPECT_EQ(Values(joined), (Strings{"b", "a", "c", "a", "", "zz", "q", "r", "s"}));
  const std::vector<Tensor> halves = RunOp("Split", {&x}, [] {
    Attributes a;
    a.set("axis", int64_t{1});
    a.set("num_outputs", int64_t{3});
    return a;
  }());
  ASSERT_EQ(halves.size(), 3u);
  EXPECT_EQ(Values(halves[2]), (Strings{"c", "zz"}));
  const Tensor condition = Tensor::from_vector(Shape({3}), std::vector<bool>{true, false, true});
  EXPECT_EQ(Values(RunOp("Where", {&condition, &x, &y})[0]),
            (Strings{"b", "r", "c", "a", "r", "zz"}));
  EXPECT_EQ(Values(RunOp("Identity", {&x})[0]), Values(x));
}

TEST(StringCodes, EqualComparesTextWithBroadcasting) {
  const Tensor x = Str({2, 2}, {"ab", "b", "", "ab"});
  const Tensor y = Str({2}, {"ab", "c"});
  EXPECT_EQ(testing::TensorValues<bool>(RunOp("Equal", {&x, &y})[0]),
            (std::vector<bool>{true, false, false, false}));
}

TEST(StringCodes, UniqueSortsByBytes) {
  const Tensor x = Str({6}, {"pear", "apple", "Pear", "pear", "", "apple"});
  const std::vector<Tensor> sorted = RunOp("Unique", {&x});
  ASSERT_EQ(sorted.size(), 4u);
  EXPECT_EQ(Values(sorted[0]), (Strings{"", "Pear", "apple", "pear"}));
  EXPECT_EQ(testing::TensorValues<int64_t>(sorted[1]), (std::vector<int64_t>{4, 2, 1, 0}));
  EXPECT_EQ(testing::TensorValues<int64_t>(sorted[2]), (std::vector<int64_t>{3, 2, 1, 3, 0, 2}));
  EXPECT_EQ(testing::TensorValues<int64_t>(sorted[3]), (std::vector<int64_t>{1, 1, 2, 2}));
  Attributes unsorted;
  unsorted.set("sorted", int64_t{0});
  EXPECT_EQ(Values(RunOp("Unique", {&x}, unsorted)[0]), (Strings{"pear", "apple", "Pear", ""}));
}

TEST(StringCodes, MixingStringsWithNumbersIsAnError) {
  const Tensor x = Str({2}, {"a", "b"});
  const Tensor n = Tensor::from_vector(Shape({2}), std::vector<int64_t>{0, 1});
  Attributes axis0;
  axis0.set("axis", int64_t{0});
  const std::string error = ErrorOf("Concat", {&x, &n}, axis0);
  EXPECT_NE(error.find("Concat:"), std::string::npos) << error;
  EXPECT_NE(error.find("int64"), std::string::npos) << error;
  EXPECT_NE(ErrorOf("Gather", {&x, &x}), "no error");  // string indices
}

TEST(StringCodes, SameResultOnAPool) {
  auto pool = testing::PoolWithThreads(3);
  Strings values;
  for (int i = 0; i < 5000; ++i) values.push_back(std::to_string((i * 7919) % 1000));
  const Tensor x = Str({50, 100}, values);
  const Tensor serial = RunOp("Transpose", {&x})[0];
  const Tensor parallel = RunOp("Transpose", {&x}, {}, pool.get())[0];
  EXPECT_EQ(Values(serial), Values(parallel));
  EXPECT_EQ(Values(serial)[1], values[100]);
}

Attributes CastTo(DType dtype) {
  Attributes attrs;
  int64_t code = 0;
  switch (dtype) {
    case DType::kString:
      code = 8;
      break;
    case DType::kFloat32:
      code = 1;
      break;
    case DType::kFloat64:
      code = 11;
      break;
    case DType::kInt32:
      code = 6;
      break;
    case DType::kUInt8:
      code = 2;
      break;
    case DType::kBool:
      code = 9;
      break;
    case DType::kFloat16:
      code = 10;
      break;
    case DType::kInt64:
      code = 7;
      break;
    default:
      ADD_FAILURE() << "no code";
  }
  attrs.set("to", code);
  return attrs;
}

TEST(StringCast, NumbersPrintAsNumPyPrintsThem) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor f = Tensor::from_vector(
      Shape({8}), std::vector<float>{0.1f, 1e16f, 1e-5f, 100000.0f, -0.0f, -inf,
                                     std::numeric_limits<float>::quiet_NaN(), 1.0f / 3.0f});
  EXPECT_EQ(Values(RunOp("Cast", {&f}, CastTo(DType::kString))[0]),
            (Strings{"0.1", "1e+16", "1e-05", "100000.0", "-0.0", "-inf", "nan", "0.33333334"}));
  const Tensor d =
      Tensor::from_vector(Shape({3}), std::vector<double>{0.1, 123456789012345678.0, 1.5e300});
  EXPECT_EQ(Values(RunOp("Cast", {&d}, CastTo(DType::kString))[0]),
            (Strings{"0.1", "1.2345678901234568e+17", "1.5e+300"}));
  const Tensor h =
      Tensor::from_vector(Shape({2}), std::vector<Float16>{Float16(0.1f), Float16(65504.0f)});
  EXPECT_EQ(Values(RunOp("Cast", {&h}, CastTo(DType::kString))[0]), (Strings{"0.1", "65500.0"}));
  const Tensor i = Tensor::from_vector(
      Shape({2}), std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 42});
  EXPECT_EQ(Values(RunOp("Cast", {&i}, CastTo(DType::kString))[0]),
            (Strings{"-9223372036854775808", "42"}));
  const Tensor b = Tensor::from_vector(Shape({2}), std::vector<bool>{true, false});
  EXPECT_EQ(Values(RunOp("Cast", {&b}, CastTo(DType::kString))[0]), (Strings{"True", "False"}));
}

TEST(StringCast, TextParsesToNumbers) {
  const Tensor ints = Str({4}, {" 12 ", "1.9", "-1.9", "+7"});
  EXPECT_EQ(testing::TensorValues<int32_t>(RunOp("Cast", {&ints}, CastTo(DType::kInt32))[0]),
            (std::vector<int32_t>{12, 1, -1, 7}));
  const Tensor big = Str({1}, {"9223372036854775807"});
  EXPECT_EQ(testing::TensorValues<int64_t>(RunOp("Cast", {&big}, CastTo(DType::kInt64))[0]),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max()}));
  const Tensor floats = Str({6}, {"INF", "-inf", "+Infinity", "1e-400", "1e400", "0.1"});
  const Tensor d = RunOp("Cast", {&floats}, CastTo(DType::kFloat64))[0];
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(testing::TensorValues<double>(d), (std::vector<double>{inf, -inf, inf, 0.0, inf, 0.1}));
  const Tensor nan = Str({1}, {"NaN"});
  EXPECT_TRUE(std::isnan(
      testing::TensorValues<float>(RunOp("Cast", {&nan}, CastTo(DType::kFloat32))[0])[0]));
  const Tensor f = Str({1}, {"0.1"});
  EXPECT_EQ(testing::TensorValues<float>(RunOp("Cast", {&f}, CastTo(DType::kFloat32))[0])[0], 0.1f);
  const Tensor flags = Str({4}, {"True", "false", "0", "2.5"});
  EXPECT_EQ(testing::TensorValues<bool>(RunOp("Cast", {&flags}, CastTo(DType::kBool))[0]),
            (std::vector<bool>{true, false, false, true}));
}

TEST(StringCast, TextThatIsNotANumberIsAnError) {
  for (const char* text : {"abc", "", "1.5x", "0x10", "--1"}) {
    const Tensor x = Str({1}, {text});
    EXPECT_NE(ErrorOf("Cast", {&x}, CastTo(DType::kFloat32)).find("is not a float32"),
              std::string::npos)
        << text;
  }
  const Tensor too_big = Str({1}, {"300"});
  EXPECT_NE(ErrorOf("Cast", {&too_big}, CastTo(DType::kUInt8)).find("outside the range"),
            std::string::npos);
  const Tensor negative = Str({1}, {"-1"});
  EXPECT_NE(ErrorOf("Cast", {&negative}, CastTo(DType::kUInt8)).find("outside the range"),
            std::string::npos);
}

TEST(StringCast, CastLikeTakesAStringTarget) {
  const Tensor x = Tensor::from_vector(Shape({2}), std::vector<int32_t>{-3, 7});
  const Tensor like = Str({1}, {"any"});
  EXPECT_EQ(Values(RunOp("CastLike", {&x, &like})[0]), (Strings{"-3", "7"}));
}

}  // namespace
}  // namespace loom::kernels
