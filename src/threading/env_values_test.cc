#include "threading/env_values.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "loom/errors.h"

namespace loom::threading {
namespace {

// The error must name the variable and quote the text found.
void ExpectRefused(const std::function<void()>& parse, const std::string& name,
                   const std::string& text) {
  try {
    parse();
    FAIL() << name << "='" << text << "' was accepted";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(name + "='" + text + "'"), std::string::npos) << e.what();
  }
}

TEST(EnvValues, ThreadCountAcceptsZeroToMax) {
  EXPECT_EQ(ParseThreadCountVariable("LOOM_NUM_INTRAOP_THREADS", "0"), 0);
  EXPECT_EQ(ParseThreadCountVariable("LOOM_NUM_INTRAOP_THREADS", "3"), 3);
  EXPECT_EQ(ParseThreadCountVariable("LOOM_NUM_INTRAOP_THREADS", "4096"), 4096);
}

TEST(EnvValues, ThreadCountRefusesGarbageNamingVariableAndValue) {
  for (const char* text : {"abc", "-2", "4x", "", " 3", "4097", "99999999999999999999", "2.0"}) {
    ExpectRefused([&] { ParseThreadCountVariable("TF_NUM_INTEROP_THREADS", text); },
                  "TF_NUM_INTEROP_THREADS", text);
  }
}

TEST(EnvValues, OmpNumThreadsTakesOutermostLevelOfNestedList) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, int>>{
           {"6", 6}, {"4,2,1", 4}, {" 2 ", 2}, {"2 ", 2}, {"1,", 1}, {"3 , 2", 3}, {"4,x", 4}}) {
    const OtherLibraryValue read = ReadOmpNumThreads(text);
    ASSERT_TRUE(read.value.has_value()) << "'" << text << "'";
    EXPECT_EQ(*read.value, expected) << "'" << text << "'";
    EXPECT_EQ(read.problem, "") << "'" << text << "'";
  }
}

TEST(EnvValues, EmptyOtherLibraryVariableCountsAsUnset) {
  for (const char* text : {"", "  "}) {
    EXPECT_FALSE(ReadOmpNumThreads(text).value.has_value());
    EXPECT_EQ(ReadOmpNumThreads(text).problem, "");
    EXPECT_FALSE(ReadKmpBlocktime(text).value.has_value());
    EXPECT_EQ(ReadKmpBlocktime(text).problem, "");
  }
}

TEST(EnvValues, UnusableOmpNumThreadsIsAProblemNamingItNeverAnError) {
  for (const char* text : {"0", "-1", ",4", "four", "99999"}) {
    const OtherLibraryValue read = ReadOmpNumThreads(text);
    EXPECT_FALSE(read.value.has_value()) << text;
    EXPECT_NE(read.problem.find("OMP_NUM_THREADS='" + std::string(text) + "' is ignored"),
              std::string::npos)
        << read.problem;
  }
}

TEST(EnvValues, SpinWaitUsIsMicroseconds) {
  EXPECT_EQ(ParseSpinWaitUs("0"), 0);
  EXPECT_EQ(ParseSpinWaitUs("250"), 250);
  ExpectRefused([] { ParseSpinWaitUs("-1"); }, "LOOM_SPIN_WAIT_US", "-1");
  ExpectRefused([] { ParseSpinWaitUs("1000001"); }, "LOOM_SPIN_WAIT_US", "1000001");
}

TEST(EnvValues, KmpBlocktimeIsMillisecondsUnlessSuffixed) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, int>>{
           {"0", 0}, {"200", 200'000}, {"5ms", 5'000}, {"40us", 40}, {" 3 ", 3'000}}) {
    const OtherLibraryValue read = ReadKmpBlocktime(text);
    ASSERT_TRUE(read.value.has_value()) << "'" << text << "'";
    EXPECT_EQ(*read.value, expected) << "'" << text << "'";
  }
}

TEST(EnvValues, UnusableKmpBlocktimeIsAProblemNamingItNeverAnError) {
  for (const char* text : {"infinite", "ms", "2s", "1001", "-5", "abc"}) {
    const OtherLibraryValue read = ReadKmpBlocktime(text);
    EXPECT_FALSE(read.value.has_value()) << text;
    EXPECT_NE(read.problem.find("KMP_BLOCKTIME='" + std::string(text) + "' is ignored"),
              std::string::npos)
        << read.problem;
  }
  EXPECT_NE(ReadKmpBlocktime("infinite").problem.find("never spins without bound"),
            std::string::npos);
}

TEST(EnvValues, CpuListVariableMustBeNonEmptyList) {
  EXPECT_EQ(ParseCpuListVariable("LOOM_INTRAOP_CPUS", "0-2,5"), (std::vector<int>{0, 1, 2, 5}));
  ExpectRefused([] { ParseCpuListVariable("LOOM_INTRAOP_CPUS", ""); }, "LOOM_INTRAOP_CPUS", "");
  ExpectRefused([] { ParseCpuListVariable("LOOM_INTEROP_CPUS", "3-1"); }, "LOOM_INTEROP_CPUS",
                "3-1");
}

}  // namespace
}  // namespace loom::threading
