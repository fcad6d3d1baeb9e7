#include "threading/thread_pool.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/logging.h"
#include "loom/errors.h"
#include "platform/testing/sanitizer_threads.h"
#include "platform/thread_identity.h"

namespace loom::threading {
namespace {

using namespace std::chrono_literals;

int CountThreadsNamedWithPrefix(const std::string& prefix) {
  int count = 0;
  for (const auto& t : platform::ListProcessThreads()) count += t.name.rfind(prefix, 0) == 0;
  return count;
}

ThreadPoolOptions Options(const std::string& name, int threads, int spin_us = 0) {
  ThreadPoolOptions options;
  options.name = name;
  options.num_threads = threads;
  options.spin_wait_us = spin_us;
  return options;
}

void WaitFor(const std::atomic<int>& counter, int value) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (counter.load() < value && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100us);
  }
}

// The process's thread count once joined threads have left /proc: the
// kernel clears the tid that pthread_join waits on before it removes the
// task, so a just-joined thread can still be listed for a moment (seen once
// under ASan: 2 threads listed where 1 was expected). Polls up to 1 s for
// the count to reach at most `expected` plus the sanitizer's own.
size_t ThreadsAfterJoin(size_t expected) {
  size_t count = platform::ListProcessThreads().size();
  for (int i = 0; i < 100 && !platform::ThreadCountMatches(count, expected); ++i) {
    std::this_thread::sleep_for(10ms);
    count = platform::ListProcessThreads().size();
  }
  return count;
}

TEST(ThreadPool, CreatesExactlyNumThreadsAndJoinsThemAll) {
  const size_t before = platform::ListProcessThreads().size();
  {
    ThreadPool pool(Options("exact", 3));
    EXPECT_PRED2(platform::ThreadCountMatches, platform::ListProcessThreads().size(), before + 3);
    EXPECT_EQ(pool.num_threads(), 3);
  }
  EXPECT_PRED2(platform::ThreadCountMatches, ThreadsAfterJoin(before), before);
}

TEST(ThreadPool, WorkersAreNamedByPoolAndIndex) {
  ThreadPool pool(Options("named", 2));
  std::vector<std::string> names;
  for (const auto& t : platform::ListProcessThreads()) names.push_back(t.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "loom-named-0"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "loom-named-1"), names.end());
  ASSERT_EQ(pool.workers().size(), 2u);
  EXPECT_EQ(pool.workers()[1].name, "loom-named-1");
  EXPECT_GT(pool.workers()[1].tid, 0);
}

TEST(ThreadPool, OwnedWorkersCarryTheOwnerWithinTheKernelsFifteenCharacters) {
  EXPECT_EQ(WorkerThreadName("", "intra", 0), "loom-intra-0");
  EXPECT_EQ(WorkerThreadName("s1", "intra", 0), "loom-s1-intra-0");
  EXPECT_EQ(WorkerThreadName("s9", "inter", 9), "loom-s9-inter-9");
  EXPECT_EQ(WorkerThreadName("s1", "data", 12), "loom-s1-data-12");
  // Too long for 15 characters: the pool name shortens, the owner stays.
  EXPECT_EQ(WorkerThreadName("s12", "intra", 0), "loom-s12-ia-0");
  EXPECT_EQ(WorkerThreadName("s12", "inter", 10), "loom-s12-ie-10");
  EXPECT_EQ(WorkerThreadName("s123", "data", 100), "loom-s123-d-100");
  // Past that, cut at 15.
  EXPECT_EQ(WorkerThreadName("s123456", "intra", 1000), "loom-s123456-ia");
  ThreadPoolOptions options = Options("intra", 1);
  options.owner = "s42";
  ThreadPool pool(options);
  EXPECT_EQ(pool.workers()[0].name, "loom-s42-ia-0");
  std::vector<std::string> names;
  for (const auto& t : platform::ListProcessThreads()) names.push_back(t.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "loom-s42-ia-0"), names.end());
  // A worker knows its own description; other threads are no worker.
  EXPECT_EQ(CurrentWorkerInfo(), nullptr);
  std::promise<std::string> seen;
  pool.Schedule([&] { seen.set_value(CurrentWorkerInfo() ? CurrentWorkerInfo()->name : "none"); });
  EXPECT_EQ(seen.get_future().get(), "loom-s42-ia-0");
}

TEST(ThreadPool, EveryScheduledTaskRunsOnce) {
  ThreadPool pool(Options("all", 2, 20));
  constexpr int kTasks = 5000;
  std::vector<std::atomic<int>> runs(kTasks);
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back([&, p] {
      for (int i = p; i < kTasks; i += 4) pool.Schedule([&runs, i] { runs[i].fetch_add(1); });
    });
  }
  for (auto& t : producers) t.join();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  auto all_ran = [&] {
    return std::all_of(runs.begin(), runs.end(), [](const auto& r) { return r.load() == 1; });
  };
  while (!all_ran() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
}

TEST(ThreadPool, ThrowingTaskDoesNotKillWorker) {
  std::vector<std::string> logged;
  std::mutex log_mutex;
  base::LogSink previous = base::SetLogSinkForTesting([&](std::string_view line) {
    std::lock_guard lock(log_mutex);
    logged.emplace_back(line);
  });
  {
    ThreadPool pool(Options("throws", 1));
    std::atomic<int> after{0};
    pool.Schedule([] { throw std::runtime_error("boom"); });
    pool.Schedule([] { throw 42; });
    for (int i = 0; i < 10; ++i) pool.Schedule([&] { after.fetch_add(1); });
    WaitFor(after, 10);
    EXPECT_EQ(after.load(), 10);
    EXPECT_EQ(pool.failed_task_count(), 2u);
    EXPECT_EQ(CountThreadsNamedWithPrefix("loom-throws-"), 1);
  }
  base::SetLogSinkForTesting(std::move(previous));
  ASSERT_EQ(logged.size(), 1u);  // the first failure is logged, later ones counted
  EXPECT_NE(logged[0].find("boom"), std::string::npos);
}

TEST(ThreadPool, DestructorDrainsQueuedWork) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(Options("drain", 1));
    // The single worker is held busy, so everything after it is still queued
    // when the destructor starts.
    pool.Schedule([&] {
      std::this_thread::sleep_for(50ms);
      ran.fetch_add(1);
    });
    for (int i = 0; i < 100; ++i) pool.Schedule([&] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 101);
}

TEST(ThreadPool, TasksScheduledByTasksDuringShutdownStillRun) {
  std::atomic<int> ran{0};
  std::function<void(int)> chain;  // declared first: must outlive the pool
  {
    ThreadPool pool(Options("chain", 2));
    chain = [&](int depth) {
      ran.fetch_add(1);
      if (depth > 0) pool.Schedule([&, depth] { chain(depth - 1); });
    };
    pool.Schedule([&] {
      std::this_thread::sleep_for(20ms);
      chain(50);
    });
  }
  EXPECT_EQ(ran.load(), 51);
}

TEST(ThreadPool, ZeroWorkerPoolRunsScheduledTaskInline) {
  ThreadPool pool(Options("none", 0));
  std::thread::id ran_on;
  pool.Schedule([&] { ran_on = std::this_thread::get_id(); });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(ThreadPool, IdlePoolWithZeroSpinUsesNoCpu) {
  ThreadPool pool(Options("idle0", 2, 0));
  std::atomic<int> ran{0};
  pool.Schedule([&] { ran.fetch_add(1); });
  WaitFor(ran, 1);
  std::this_thread::sleep_for(20ms);  // let the workers go to sleep
  const double before = platform::ProcessCpuSeconds();
  std::this_thread::sleep_for(300ms);
  const double used = platform::ProcessCpuSeconds() - before;
  // Two spinning workers would burn ~0.6 s here; allow scheduler noise.
  EXPECT_LT(used, 0.03) << "CPU seconds used by an idle pool over 0.3 s";
}

TEST(ThreadPool, IdlePoolStopsSpinningAfterSpinTime) {
  ThreadPool pool(Options("idle1ms", 2, 1000));
  std::atomic<int> ran{0};
  pool.Schedule([&] { ran.fetch_add(1); });
  WaitFor(ran, 1);
  std::this_thread::sleep_for(20ms);  // 20x the spin time
  const double before = platform::ProcessCpuSeconds();
  std::this_thread::sleep_for(300ms);
  EXPECT_LT(platform::ProcessCpuSeconds() - before, 0.03);
}

// Polls `condition` for up to 5 s.
template <typename Condition>
bool Eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(ThreadPool, CpusOversubscribedCountsTheWorkersNotBlocked) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  const int cpus = CPU_COUNT(&mask);
  // A blocked worker does not count: one pool asleep leaves the CPUs free.
  ThreadPool asleep(Options("asleep", 1, 0));
  if (cpus >= 2) {
    EXPECT_TRUE(Eventually([] { return !ThreadPool::CpusOversubscribed(); }));
  }
  // As many busy workers as CPUs, plus a caller, are one thread too many.
  ThreadPool busy(Options("busy", cpus, 0));
  std::atomic<bool> release{false};
  std::atomic<int> running{0};
  for (int i = 0; i < cpus; ++i) {
    busy.Schedule([&] {
      running.fetch_add(1);
      while (!release.load()) std::this_thread::sleep_for(1ms);
    });
  }
  WaitFor(running, cpus);
  EXPECT_TRUE(ThreadPool::CpusOversubscribed());
  release.store(true);
  // Once they block again (spin 0), the CPUs are free again.
  if (cpus >= 2) {
    EXPECT_TRUE(Eventually([] { return !ThreadPool::CpusOversubscribed(); }));
  }
}

TEST(ThreadPool, SpinScopeKeepsIdleWorkersSpinningUntilItEnds) {
  ThreadPool pool(Options("scope", 1, 50));
  std::atomic<int> ran{0};
  {
    const ThreadPool::SpinScope scope(&pool);
    pool.Schedule([&] { ran.fetch_add(1); });
    WaitFor(ran, 1);
    const double before = platform::ProcessCpuSeconds();
    std::this_thread::sleep_for(300ms);  // 6000x the spin time
    // A spinning worker polls (yielding between rounds) the whole time: on
    // an idle core that is ~0.3 s of CPU. The bound is far lower because a
    // loaded host (ctest -j, compilers) gives a yielding thread only its
    // fair share; a sleeping worker would use ~0.
    EXPECT_GT(platform::ProcessCpuSeconds() - before, 0.02)
        << "CPU seconds of a worker spinning under a SpinScope for 0.3 s";
  }
  std::this_thread::sleep_for(20ms);  // the scope is gone: back to 50 µs
  const double before = platform::ProcessCpuSeconds();
  std::this_thread::sleep_for(300ms);
  EXPECT_LT(platform::ProcessCpuSeconds() - before, 0.03);
}

TEST(ThreadPool, WorkersLingerAfterTheLastSpinScopeEnds) {
  // spin_wait_us 25 ms: the linger is kScopeLingerSpinWaits x that (100 ms).
  ThreadPool pool(Options("linger", 1, 25'000));
  std::atomic<int> ran{0};
  {
    const ThreadPool::SpinScope scope(&pool);
    pool.Schedule([&] { ran.fetch_add(1); });
    WaitFor(ran, 1);
    // Past the worker's own 25 ms: only the scope keeps it polling now.
    std::this_thread::sleep_for(60ms);
  }
  const double at_end = platform::ProcessCpuSeconds();
  std::this_thread::sleep_for(70ms);  // inside the linger
  // Same bound as above: a loaded host gives a yielding thread its fair share.
  EXPECT_GT(platform::ProcessCpuSeconds() - at_end, 0.005)
      << "CPU seconds of a worker polling in the 70 ms after the scope ended";
  std::this_thread::sleep_for(100ms);  // the linger is over
  const double before = platform::ProcessCpuSeconds();
  std::this_thread::sleep_for(300ms);
  EXPECT_LT(platform::ProcessCpuSeconds() - before, 0.03);
}

TEST(ThreadPool, SpinScopeDoesNotMakeZeroSpinPoolsSpin) {
  ThreadPool pool(Options("scope0", 2, 0));
  const ThreadPool::SpinScope scope(&pool);
  const ThreadPool::SpinScope no_pool(nullptr);
  std::atomic<int> ran{0};
  pool.Schedule([&] { ran.fetch_add(1); });
  WaitFor(ran, 1);
  std::this_thread::sleep_for(20ms);
  const double before = platform::ProcessCpuSeconds();
  std::this_thread::sleep_for(300ms);
  EXPECT_LT(platform::ProcessCpuSeconds() - before, 0.03);
}

TEST(ThreadPool, PinnedWorkersRunOnlyOnTheirCpu) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int first_cpu = 0;
  while (!CPU_ISSET(first_cpu, &allowed)) ++first_cpu;
  ThreadPoolOptions options = Options("pinned", 2);
  options.cpus = {first_cpu};
  ThreadPool pool(options);
  for (const WorkerInfo& worker : pool.workers()) {
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(worker.tid, sizeof(set), &set), 0);
    EXPECT_EQ(CPU_COUNT(&set), 1) << worker.name;
    EXPECT_TRUE(CPU_ISSET(first_cpu, &set)) << worker.name;
  }
}

// The first CPU of this process's affinity mask, and how many it has.
std::pair<int, int> FirstAllowedCpu() {
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  return {first, CPU_COUNT(&allowed)};
}

// Wakes the (sleeping) single worker of `pool` from a thread pinned to
// `waker_cpu` and returns the CPU the woken task ran on.
int CpuOfTaskWokenFrom(ThreadPool& pool, int waker_cpu, WakePlacement placement) {
  std::this_thread::sleep_for(30ms);  // far beyond the spin: the worker sleeps
  std::atomic<int> ran_on{-1};
  std::thread waker([&] {
    platform::PinCurrentThread({waker_cpu});
    pool.ScheduleHelpers(
        1, [&] { ran_on.store(sched_getcpu()); }, placement);
    while (ran_on.load() < 0) std::this_thread::yield();
  });
  waker.join();
  return ran_on.load();
}

TEST(ThreadPool, WakeAwayFromWakerRunsElsewhereAndRestoresTheMask) {
  auto [first_cpu, allowed] = FirstAllowedCpu();
  if (allowed < 2) GTEST_SKIP() << "needs two CPUs in the affinity mask";
  ThreadPool pool(Options("away", 1, 0));
  const int tid = pool.workers()[0].tid;
  cpu_set_t before, after;
  ASSERT_EQ(sched_getaffinity(tid, sizeof(before), &before), 0);
  for (int round = 0; round < 5; ++round) {
    EXPECT_NE(CpuOfTaskWokenFrom(pool, first_cpu, WakePlacement::kAwayFromWaker), first_cpu);
    // The steering is for the wake-up only: the mask is whole again.
    ASSERT_EQ(sched_getaffinity(tid, sizeof(after), &after), 0);
    EXPECT_TRUE(CPU_EQUAL(&before, &after)) << "round " << round;
  }
}

TEST(ThreadPool, WakeAwayFromWakerLeavesPinnedWorkersWhereTheyAre) {
  auto [first_cpu, allowed] = FirstAllowedCpu();
  ThreadPoolOptions options = Options("pinaway", 1, 0);
  options.cpus = {first_cpu};
  ThreadPool pool(options);
  EXPECT_EQ(CpuOfTaskWokenFrom(pool, first_cpu, WakePlacement::kAwayFromWaker), first_cpu);
  (void)allowed;
}

TEST(ThreadPool, UnpinnableCpuIsAnErrorAndLeavesNoThreads) {
  const size_t before = platform::ListProcessThreads().size();
  ThreadPoolOptions options = Options("badpin", 2);
  options.cpus = {1000};  // beyond any machine this runs on
  EXPECT_THROW(ThreadPool pool(options), loom::RuntimeError);
  EXPECT_PRED2(platform::ThreadCountMatches, ThreadsAfterJoin(before), before);
}

TEST(ThreadPool, ScheduleHelpersUsesDistinctWorkersNeverTheCaller) {
  ThreadPool pool(Options("helpers", 3));
  std::mutex mutex;
  std::vector<int> indices;
  std::atomic<int> done{0};
  std::latch finished(1);
  pool.Schedule([&] {
    const int self = pool.CurrentWorkerIndex();
    std::atomic<int> helpers_ran{0};
    const int queued = pool.ScheduleHelpers(5, [&] {
      std::lock_guard lock(mutex);
      indices.push_back(pool.CurrentWorkerIndex());
      helpers_ran.fetch_add(1);
    });
    EXPECT_EQ(queued, 2);  // 3 workers minus the caller
    while (helpers_ran.load() < queued) std::this_thread::yield();
    std::lock_guard lock(mutex);
    EXPECT_EQ(std::count(indices.begin(), indices.end(), self), 0);
    done.store(1);
    finished.count_down();
  });
  finished.wait();
  EXPECT_EQ(done.load(), 1);
  EXPECT_EQ(pool.CurrentWorkerIndex(), -1);
}

}  // namespace
}  // namespace loom::threading
