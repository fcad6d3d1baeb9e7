#include "platform/thread_identity.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include "loom/errors.h"
#include "platform/system_probe.h"

namespace loom::platform {
namespace {

bool ThreadListed(const std::string& name, int tid) {
  for (const OsThread& thread : ListProcessThreads()) {
    if (thread.tid == tid) return thread.name == name;
  }
  return false;
}

// Names a new thread `requested`, then checks (while it is still alive) that
// the thread list shows `expected` for it.
void ExpectNameListed(const std::string& requested, const std::string& expected) {
  std::promise<int> named;
  std::promise<void> checked;
  std::thread thread([&] {
    SetCurrentThreadName(requested);
    named.set_value(gettid());
    checked.get_future().wait();
  });
  int tid = named.get_future().get();
  EXPECT_TRUE(ThreadListed(expected, tid)) << "tid " << tid << " not listed as " << expected;
  checked.set_value();
  thread.join();
}

TEST(ThreadIdentity, NameShowsInThreadList) { ExpectNameListed("loom-worker-3", "loom-worker-3"); }

TEST(ThreadIdentity, LongNameIsTruncatedNotRejected) {
  ExpectNameListed("loom-worker-with-a-long-name", "loom-worker-wit");
}

TEST(ThreadIdentity, ThreadListIsSortedAndIncludesCaller) {
  std::vector<OsThread> threads = ListProcessThreads();
  EXPECT_TRUE(std::is_sorted(threads.begin(), threads.end(),
                             [](const OsThread& a, const OsThread& b) { return a.tid < b.tid; }));
  int self = gettid();
  EXPECT_TRUE(std::any_of(threads.begin(), threads.end(),
                          [&](const OsThread& thread) { return thread.tid == self; }));
}

TEST(ThreadIdentity, ProcessCpuSecondsGrowsWithBusyWork) {
  double before = ProcessCpuSeconds();
  // Spin until the clock moves rather than for a fixed time: CPU accounting
  // can be coarse (tick-based) on some kernels. The deadline only stops a hang.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  volatile unsigned sink = 0;
  while (ProcessCpuSeconds() <= before && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 100000; ++i) sink = sink + static_cast<unsigned>(i);
  }
  EXPECT_GT(ProcessCpuSeconds(), before);
}

// Pinning runs on a scratch thread so the test runner's own affinity is untouched.
TEST(ThreadIdentity, PinnedThreadRunsOnThatCpu) {
  std::optional<std::vector<int>> allowed = RealSystemProbe().AffinityCpus();
  ASSERT_TRUE(allowed.has_value());
  if (std::find(allowed->begin(), allowed->end(), 0) == allowed->end()) {
    GTEST_SKIP() << "CPU 0 is not in this process's affinity mask";
  }
  int cpu = -1;
  std::thread thread([&] {
    PinCurrentThread({0});
    cpu = sched_getcpu();
  });
  thread.join();
  EXPECT_EQ(cpu, 0);
}

TEST(ThreadIdentity, PinToImpossibleCpuThrows) {
  bool threw = false;
  std::thread thread([&] {
    try {
      PinCurrentThread({60000});
    } catch (const RuntimeError&) {
      threw = true;
    }
  });
  thread.join();
  EXPECT_TRUE(threw);
}

}  // namespace
}  // namespace loom::platform
