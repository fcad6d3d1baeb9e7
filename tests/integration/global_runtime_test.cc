// The global runtime through the public API. Each test runs its body in a
// process of its own (ExpectInFreshProcess), so it sees a runtime that has
// not started, however the binary is run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "loom/config.h"
#include "loom/errors.h"
#include "loom/runtime.h"
#include "platform/testing/fresh_process.h"
#include "platform/testing/sanitizer_threads.h"
#include "platform/thread_identity.h"
#include "threading/parallel_for.h"
#include "threading/runtime.h"
#include "threading/threading_config.h"

namespace loom {
namespace {

namespace threading = config::threading;
using namespace std::chrono_literals;
using platform::testing::ExpectInFreshProcess;

void ClearThreadingEnvironment() {
  for (const char* name :
       {"LOOM_NUM_INTRAOP_THREADS", "TF_NUM_INTRAOP_THREADS", "LOOM_NUM_INTEROP_THREADS",
        "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS", "LOOM_SPIN_WAIT_US", "KMP_BLOCKTIME",
        "LOOM_INTRAOP_CPUS", "LOOM_INTEROP_CPUS"}) {
    unsetenv(name);
  }
}

TEST(GlobalRuntime, LifecycleFromOpenSettingsToFrozenPools) {
  ExpectInFreshProcess([] {
    ASSERT_FALSE(runtime_started());
    ClearThreadingEnvironment();
    threading::set_intra_op_parallelism_threads(3);
    threading::set_inter_op_parallelism_threads(2);
    threading::set_spin_wait_us(0);
    EXPECT_EQ(threading::get_intra_op_parallelism_threads(), 3);
    EXPECT_FALSE(threading::describe().runtime_started);
    EXPECT_TRUE(threading::describe().threads.empty());

    const size_t before = platform::ListProcessThreads().size();
    start_runtime();
    start_runtime();  // idempotent
    EXPECT_TRUE(runtime_started());
    // Exactly intra-1 + inter-1 new threads, and nothing else.
    EXPECT_PRED2(platform::ThreadCountMatches, platform::ListProcessThreads().size(),
                 before + 2 + 1);
    threading::Description d = threading::describe();
    EXPECT_TRUE(d.runtime_started);
    ASSERT_EQ(d.threads.size(), 3u);
    EXPECT_EQ(d.threads[0].name, "loom-intra-0");

    EXPECT_THROW(threading::set_intra_op_parallelism_threads(4), RuntimeError);
    EXPECT_NO_THROW(threading::set_intra_op_parallelism_threads(3));
    EXPECT_THROW(threading::set_inter_op_parallelism_threads(-1), InvalidArgumentError);
    EXPECT_EQ(threading::get_intra_op_parallelism_threads(), 3);
    EXPECT_EQ(threading::get_inter_op_parallelism_threads(), 2);

    // The pools are the ones ParallelFor uses, and they stay exact under use.
    std::atomic<int64_t> sum{0};
    loom::threading::ParallelFor(loom::threading::GlobalRuntime().intra_op_pool(), 1000, 1e6,
                                 [&](int64_t b, int64_t e) { sum += e - b; });
    EXPECT_EQ(sum.load(), 1000);
    EXPECT_PRED2(platform::ThreadCountMatches, platform::ListProcessThreads().size(), before + 3);
  });
}

TEST(GlobalRuntime, IdleRuntimeWithZeroSpinUsesNoCpu) {
  ExpectInFreshProcess([] {
    ASSERT_FALSE(runtime_started());
    ClearThreadingEnvironment();
    threading::set_spin_wait_us(0);
    threading::set_intra_op_parallelism_threads(2);
    threading::set_inter_op_parallelism_threads(2);
    start_runtime();
    std::this_thread::sleep_for(20ms);
    const double before = platform::ProcessCpuSeconds();
    std::this_thread::sleep_for(300ms);
    EXPECT_LT(platform::ProcessCpuSeconds() - before, 0.03);
  });
}

TEST(GlobalRuntime, InvalidEnvironmentRefusesToStartAndLeavesSettingsOpen) {
  ExpectInFreshProcess([] {
    ASSERT_FALSE(runtime_started());
    ClearThreadingEnvironment();
    // Must happen before the configuration is first touched: it reads the
    // environment once.
    setenv("LOOM_NUM_INTEROP_THREADS", "lots", 1);
    EXPECT_THROW(start_runtime(), InvalidArgumentError);
    EXPECT_FALSE(runtime_started());
    EXPECT_THROW(threading::get_inter_op_parallelism_threads(), InvalidArgumentError);
    EXPECT_NO_THROW(threading::set_intra_op_parallelism_threads(1));
  });
}

}  // namespace
}  // namespace loom
