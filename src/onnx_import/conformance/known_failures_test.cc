#include "onnx_import/conformance/known_failures.h"

#include <gtest/gtest.h>

#include "loom/errors.h"

namespace loom::conformance {
namespace {

std::string ErrorOf(std::string_view text) {
  try {
    ParseKnownFailures(text, "list.txt");
  } catch (const InvalidArgumentError& e) {
    return e.what();
  }
  return "";
}

TEST(KnownFailures, ParsesEntriesCommentsAndBlankLines) {
  KnownFailures known = ParseKnownFailures(
      "# header comment\n"
      "\n"
      "node/test_a  # reason one # with a hash\n"
      "  simple/test_b\t#reason two  \n",
      "list.txt");
  ASSERT_EQ(known.size(), 2u);
  EXPECT_EQ(known.at("node/test_a").reason, "reason one # with a hash");
  EXPECT_EQ(known.at("simple/test_b").reason, "reason two");
  EXPECT_FALSE(known.at("node/test_a").may_pass);
  EXPECT_FALSE(known.at("simple/test_b").may_pass);
}

TEST(KnownFailures, MayPassMarkerIsParsed) {
  KnownFailures known = ParseKnownFailures(
      "node/test_random  [may-pass]  # one random draw\n"
      "node/test_fixed # always fails\n",
      "list.txt");
  ASSERT_EQ(known.size(), 2u);
  EXPECT_TRUE(known.at("node/test_random").may_pass);
  EXPECT_EQ(known.at("node/test_random").reason, "one random draw");
  EXPECT_FALSE(known.at("node/test_fixed").may_pass);
}

TEST(KnownFailures, UnknownMarkerIsAnError) {
  EXPECT_EQ(ErrorOf("node/test_a [maypass] # typo\n"),
            "list.txt:1: unknown marker '[maypass]' (the one marker is [may-pass])");
  EXPECT_EQ(ErrorOf("node/test_a [may-pass] [may-pass] # twice\n"),
            "list.txt:1: 'node/test_a [may-pass] [may-pass]' is not a case id like "
            "'node/test_abs'");
  EXPECT_EQ(ErrorOf("[may-pass] # marker alone\n"),
            "list.txt:1: '[may-pass]' is not a case id like 'node/test_abs'");
}

TEST(KnownFailures, EmptyTextIsAnEmptyList) {
  EXPECT_TRUE(ParseKnownFailures("", "list.txt").empty());
}

TEST(KnownFailures, EntryWithoutReasonIsAnError) {
  EXPECT_EQ(ErrorOf("node/test_a  # fine\nnode/test_b\n"),
            "list.txt:2: entry 'node/test_b' has no reason (write 'suite/case  # reason')");
  EXPECT_EQ(ErrorOf("node/test_b #   \n"),
            "list.txt:1: entry 'node/test_b' has no reason (write 'suite/case  # reason')");
}

TEST(KnownFailures, MalformedIdIsAnError) {
  EXPECT_EQ(ErrorOf("test_a # no suite\n"),
            "list.txt:1: 'test_a' is not a case id like 'node/test_abs'");
  EXPECT_EQ(ErrorOf("node/test_a node/test_b # two\n"),
            "list.txt:1: 'node/test_a node/test_b' is not a case id like 'node/test_abs'");
  EXPECT_EQ(ErrorOf("node/ # empty case\n"),
            "list.txt:1: 'node/' is not a case id like 'node/test_abs'");
}

TEST(KnownFailures, RepeatedEntryIsAnError) {
  EXPECT_EQ(ErrorOf("node/test_a # one\nnode/test_a # two\n"),
            "list.txt:2: 'node/test_a' is listed twice");
}

TEST(KnownFailures, MissingFileIsAnError) {
  EXPECT_THROW(ReadKnownFailures("/nonexistent/known_failures.txt"), InvalidArgumentError);
}

}  // namespace
}  // namespace loom::conformance
