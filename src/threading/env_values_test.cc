#include "threading/env_values.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(ParseOmpNumThreads("6"), 6);
  EXPECT_EQ(ParseOmpNumThreads("4,2,1"), 4);
}

TEST(EnvValues, OmpNumThreadsRefusesZeroAndGarbageAnywhere) {
  for (const char* text : {"0", "", "-1", "4,", "4,x", ",4", "four"}) {
    ExpectRefused([&] { ParseOmpNumThreads(text); }, "OMP_NUM_THREADS", text);
  }
}

TEST(EnvValues, SpinWaitUsIsMicroseconds) {
  EXPECT_EQ(ParseSpinWaitUs("0"), 0);
  EXPECT_EQ(ParseSpinWaitUs("250"), 250);
  ExpectRefused([] { ParseSpinWaitUs("-1"); }, "LOOM_SPIN_WAIT_US", "-1");
  ExpectRefused([] { ParseSpinWaitUs("1000001"); }, "LOOM_SPIN_WAIT_US", "1000001");
}

TEST(EnvValues, KmpBlocktimeIsMillisecondsUnlessSuffixed) {
  EXPECT_EQ(ParseKmpBlocktime("0"), 0);
  EXPECT_EQ(ParseKmpBlocktime("200"), 200'000);
  EXPECT_EQ(ParseKmpBlocktime("5ms"), 5'000);
  EXPECT_EQ(ParseKmpBlocktime("40us"), 40);
}

TEST(EnvValues, KmpBlocktimeRefusesInfiniteAndGarbage) {
  for (const char* text : {"infinite", "", "ms", "2s", "1001", "-5", "abc"}) {
    ExpectRefused([&] { ParseKmpBlocktime(text); }, "KMP_BLOCKTIME", text);
  }
}

TEST(EnvValues, CpuListVariableMustBeNonEmptyList) {
  EXPECT_EQ(ParseCpuListVariable("LOOM_INTRAOP_CPUS", "0-2,5"), (std::vector<int>{0, 1, 2, 5}));
  ExpectRefused([] { ParseCpuListVariable("LOOM_INTRAOP_CPUS", ""); }, "LOOM_INTRAOP_CPUS", "");
  ExpectRefused([] { ParseCpuListVariable("LOOM_INTEROP_CPUS", "3-1"); }, "LOOM_INTEROP_CPUS",
                "3-1");
}

}  // namespace
}  // namespace loom::threading
