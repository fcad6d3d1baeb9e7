// Runs part of a test in a process of its own, for tests of process-wide
// state that only holds once: the threading configuration before it freezes,
// the first start of the runtime, the data pool before its first iterator.
//
//   TEST(GlobalRuntime, Lifecycle) {
//     ExpectInFreshProcess([] {
//       EXPECT_FALSE(runtime_started());  // whatever ran before in this binary
//       ...
//     });
//   }
//
// `body` runs in a child started from this test binary with GoogleTest's
// "threadsafe" death-test style (a new process that executes the binary
// again with a filter for this one test), so it sees none of what earlier
// tests in the parent process started or set. The child exits 1 when `body`
// recorded a failure, which fails the test in the parent; the child's own
// failure messages are printed on the shared stdout before the parent's.
// The test passes the same whether ctest runs it alone or the binary runs
// every test in one process, in any order.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace loom::platform::testing {

template <typename Body>
void ExpectInFreshProcess(const Body& body) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        body();
        std::fflush(stdout);
        std::_Exit(::testing::Test::HasFailure() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "")
      << "the test's body failed in its own process (its messages are above)";
}

}  // namespace loom::platform::testing
