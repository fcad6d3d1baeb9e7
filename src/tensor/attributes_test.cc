#include "loom/attributes.h"

#include <gtest/gtest.h>

#include "loom/errors.h"

namespace loom {
namespace {

TEST(Attributes, ReturnsValuesAndFallbacks) {
  Attributes attrs;
  attrs.set("group", int64_t{4}).set("alpha", 0.5f).set("mode", std::string("SAME_UPPER"));
  attrs.set("strides", std::vector<int64_t>{2, 2});
  EXPECT_EQ(attrs.get_int("group"), 4);
  EXPECT_EQ(attrs.get_int("missing", 7), 7);
  EXPECT_FLOAT_EQ(attrs.get_float("alpha", 1.0f), 0.5f);
  EXPECT_EQ(attrs.get_string("mode"), "SAME_UPPER");
  EXPECT_EQ(attrs.get_ints("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(attrs.get_ints("dilations", {1, 1}), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(attrs.has("group"));
  EXPECT_FALSE(attrs.has("pads"));
}

TEST(Attributes, WrongKindNamesAttributeAndKinds) {
  Attributes attrs;
  attrs.set("group", 2.0f);
  try {
    attrs.get_int("group", 1);
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_STREQ(e.what(), "attribute 'group' must be of kind int, got float");
  }
}

TEST(Attributes, MissingRequiredAttributeIsAnError) {
  Attributes attrs;
  EXPECT_THROW(attrs.get_ints("kernel_shape"), InvalidArgumentError);
  EXPECT_THROW(attrs.get_tensor("value"), InvalidArgumentError);
}

}  // namespace
}  // namespace loom
