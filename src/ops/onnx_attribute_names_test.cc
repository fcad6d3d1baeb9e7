#include "ops/onnx_attribute_names.h"

#include <gtest/gtest.h>

#include "loom/errors.h"
#include "loom/ops.h"

namespace loom::ops {
namespace {

std::string Error(std::string_view op, const Attributes& attributes) {
  try {
    CheckOnnxAttributeNames(op, attributes);
  } catch (const InvalidArgumentError& error) {
    return error.what();
  }
  return "";
}

TEST(OnnxAttributeNames, TableIsSortedSoLookupsFindEveryOp) {
  const auto all = AllOnnxAttributeNames();
  ASSERT_GT(all.size(), 150u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].op, all[i].op) << all[i].op;
  EXPECT_EQ(Error("Conv", {{"group", int64_t{1}}, {"pads", std::vector<int64_t>{0, 0, 0, 0}}}), "");
}

TEST(OnnxAttributeNames, MisspeltNameIsRefusedWithTheValidOnes) {
  EXPECT_EQ(Error("Softmax", {{"axsi", int64_t{0}}}),
            "Softmax: unknown attribute 'axsi' (its attributes: axis)");
  EXPECT_EQ(Error("Add", {{"alpha", 1.0f}}).find("Add: unknown attribute 'alpha'"), 0u);
  EXPECT_EQ(Error("Abs", {{"alpha", 1.0f}}),
            "Abs: unknown attribute 'alpha' (its attributes: consumed_inputs)");
}

TEST(OnnxAttributeNames, NamesOfOlderVersionsAreAccepted) {
  // ReduceSum's axes became an input at opset 13; the attribute is still a name it had.
  EXPECT_EQ(Error("ReduceSum", {{"axes", std::vector<int64_t>{1}}}), "");
}

TEST(OnnxAttributeNames, LoomsOwnOpsAreNotChecked) {
  EXPECT_EQ(Error("Silu", {{"anything", int64_t{1}}}), "");
}

TEST(OnnxAttributeNames, EagerRunRefusesAnUnknownAttributeBeforeRunning) {
  const Tensor x = Tensor::from_vector<float>({2}, {1, 2});
  EXPECT_THROW(run("Softmax", {x}, {{"axsi", int64_t{0}}}), InvalidArgumentError);
  EXPECT_NO_THROW(run("Softmax", {x}, {{"axis", int64_t{0}}}));
}

}  // namespace
}  // namespace loom::ops
