#include "base/parse_number.h"

#include <gtest/gtest.h>

namespace loom::base {
namespace {

TEST(ParseInt64, AcceptsPlainDecimal) {
  EXPECT_EQ(ParseInt64("0"), 0);
  EXPECT_EQ(ParseInt64("17"), 17);
  EXPECT_EQ(ParseInt64("-2"), -2);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
}

TEST(ParseInt64, RejectsAnythingElse) {
  for (const char* text : {"", "abc", "4x", "x4", " 4", "4 ", "+4", "--1", "1.5", "0x10"}) {
    EXPECT_EQ(ParseInt64(text), std::nullopt) << "'" << text << "'";
  }
}

TEST(ParseInt64, RejectsOverflow) {
  EXPECT_EQ(ParseInt64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseInt64("99999999999999999999999"), std::nullopt);
}

}  // namespace
}  // namespace loom::base
