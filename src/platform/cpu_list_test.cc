#include "platform/cpu_list.h"

#include <gtest/gtest.h>

namespace loom::platform {
namespace {

using Cpus = std::vector<int>;

TEST(CpuList, ParsesRangesAndSingles) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11"), (Cpus{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList("5"), (Cpus{5}));
  EXPECT_EQ(ParseCpuList("4-4"), (Cpus{4}));
}

TEST(CpuList, AllowsSurroundingWhitespace) {
  EXPECT_EQ(ParseCpuList("0-1\n"), (Cpus{0, 1}));
  EXPECT_EQ(ParseCpuList(" \t2,4 \n"), (Cpus{2, 4}));
}

TEST(CpuList, EmptyTextIsEmptyList) {
  EXPECT_EQ(ParseCpuList(""), Cpus{});
  EXPECT_EQ(ParseCpuList("\n"), Cpus{});
  EXPECT_EQ(ParseCpuList("   "), Cpus{});
}

TEST(CpuList, SortsAndDeduplicates) { EXPECT_EQ(ParseCpuList("7,1-3,2,0"), (Cpus{0, 1, 2, 3, 7})); }

TEST(CpuList, RejectsMalformedText) {
  for (const char* text : {"1-", "-1", "3-1", "a", "1,,2", ",1", "1,", "1-2-3", "1 ,2", "1, 2",
                           "+1", "0x1", "1.5", "1--2", "--", "-"}) {
    EXPECT_EQ(ParseCpuList(text), std::nullopt) << '"' << text << '"';
  }
}

TEST(CpuList, AcceptsCpusUpTo65535Only) {
  EXPECT_EQ(ParseCpuList("65535"), (Cpus{65535}));
  EXPECT_EQ(ParseCpuList("65536"), std::nullopt);
  EXPECT_EQ(ParseCpuList("0-65536"), std::nullopt);
  EXPECT_EQ(ParseCpuList("99999999999999999999999"), std::nullopt);
}

TEST(CpuList, FormatCollapsesConsecutiveRuns) {
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({5}), "5");
  EXPECT_EQ(FormatCpuList({}), "");
}

TEST(CpuList, FormatIsCanonicalForUnsortedInput) { EXPECT_EQ(FormatCpuList({3, 1, 2, 2}), "1-3"); }

TEST(CpuList, FormatThenParseRoundTrips) {
  for (const Cpus& cpus : {Cpus{}, Cpus{0}, Cpus{0, 2, 4}, Cpus{1, 2, 3, 7, 8, 63, 64, 65535}}) {
    EXPECT_EQ(ParseCpuList(FormatCpuList(cpus)), cpus) << FormatCpuList(cpus);
  }
}

}  // namespace
}  // namespace loom::platform
