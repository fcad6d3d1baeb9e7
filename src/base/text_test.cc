#include "base/text.h"

#include <gtest/gtest.h>

namespace loom::base {
namespace {

TEST(Text, TrimRemovesSurroundingWhitespaceOnly) {
  EXPECT_EQ(Trim("  a b\n"), "a b");
  EXPECT_EQ(Trim("\t\n "), "");
  EXPECT_EQ(Trim("x"), "x");
}

TEST(Text, SplitKeepsEmptyFields) {
  EXPECT_EQ(Split("a,,b", ','), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(Split("", ','), (std::vector<std::string_view>{""}));
  EXPECT_EQ(Split("a,", ','), (std::vector<std::string_view>{"a", ""}));
}

}  // namespace
}  // namespace loom::base
