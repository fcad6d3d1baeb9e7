#include "platform/thread_identity.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

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

// Restores the calling thread's name and affinity when it goes out of scope,
// so these tests can work on the test runner's own thread (only
// src/threading/ creates threads, tests included).
class RestoreThreadIdentity {
 public:
  RestoreThreadIdentity() {
    pthread_getname_np(pthread_self(), name_, sizeof(name_));
    sched_getaffinity(0, sizeof(mask_), &mask_);
  }
  ~RestoreThreadIdentity() {
    pthread_setname_np(pthread_self(), name_);
    sched_setaffinity(0, sizeof(mask_), &mask_);
  }

 private:
  char name_[16] = {};
  cpu_set_t mask_;
};

// Names the calling thread `requested` and checks that the thread list shows
// `expected` for it.
void ExpectNameListed(const std::string& requested, const std::string& expected) {
  RestoreThreadIdentity restore;
  SetCurrentThreadName(requested);
  const int tid = gettid();
  EXPECT_TRUE(ThreadListed(expected, tid)) << "tid " << tid << " not listed as " << expected;
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

TEST(ThreadIdentity, PinnedThreadRunsOnThatCpu) {
  std::optional<std::vector<int>> allowed = RealSystemProbe().AffinityCpus();
  ASSERT_TRUE(allowed.has_value());
  if (std::find(allowed->begin(), allowed->end(), 0) == allowed->end()) {
    GTEST_SKIP() << "CPU 0 is not in this process's affinity mask";
  }
  RestoreThreadIdentity restore;
  PinCurrentThread({0});
  EXPECT_EQ(sched_getcpu(), 0);
}

TEST(ThreadIdentity, PinToImpossibleCpuThrows) {
  RestoreThreadIdentity restore;
  EXPECT_THROW(PinCurrentThread({60000}), RuntimeError);
}

}  // namespace
}  // namespace loom::platform
