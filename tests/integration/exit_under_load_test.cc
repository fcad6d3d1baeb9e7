// Programs that end while other threads are inside Loom (issue 21): the
// probe starts session runs, eager ops and a pipeline's iteration on
// detached threads, then returns from main or calls std::exit(7) while they
// run. Each way, 50 times: the program's own status, nothing on stderr (no
// abort message, no sanitizer report in the sanitizer builds).
#include <gtest/gtest.h>

#include <string>

#include "subprocess.h"

namespace loom::testing {
namespace {

constexpr int kRepetitions = 50;

void ExpectCleanExits(const std::string& mode, int status) {
  for (int i = 0; i < kRepetitions; ++i) {
    const ProcessResult result = RunProcess({LOOM_EXIT_PROBE, mode});
    ASSERT_EQ(result.exit_code, status) << "repetition " << i << ", stderr:\n" << result.err;
    ASSERT_NE(result.out.find("exiting with 5 threads inside Loom"), std::string::npos)
        << result.out;
    ASSERT_EQ(result.err, "") << "repetition " << i;
  }
}

TEST(ExitUnderLoad, ReturnFromMainWhileThreadsRun) { ExpectCleanExits("return", 0); }

TEST(ExitUnderLoad, StdExitWhileThreadsRun) { ExpectCleanExits("exit", 7); }

TEST(ExitUnderLoad, ProbeRefusesUnknownMode) {
  const ProcessResult result = RunProcess({LOOM_EXIT_PROBE, "sideways"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("usage"), std::string::npos);
}

}  // namespace
}  // namespace loom::testing
