// Many threads calling run() on one session at once: every call gets the
// single-threaded answer, bit for bit (kernels are bit-exact across thread
// counts, so any difference is a data race). Run under TSan by the test
// script.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kernels/testing/kernel_test_util.h"
#include "loom/session.h"
#include "runtime/testing/test_graphs.h"

namespace loom {
namespace {

using kernels::testing::BitwiseEqual;
using kernels::testing::RandomTensor;

void RunConcurrently(const Session& session, int threads, int runs_per_thread) {
  // Inputs of two batch sizes, so concurrent runs also differ in shapes.
  const std::vector<Tensor> inputs = {
      RandomTensor(DType::kFloat32, Shape({1, 3, 16, 16}), 1),
      RandomTensor(DType::kFloat32, Shape({3, 3, 16, 16}), 2),
  };
  std::vector<std::vector<Tensor>> expected;
  for (const Tensor& x : inputs) expected.push_back(session.run({{"x", x}}));

  std::atomic<int> mismatches{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int run = 0; run < runs_per_thread; ++run) {
        const size_t which = static_cast<size_t>(t + run) % inputs.size();
        try {
          const std::vector<Tensor> out = session.run({{"x", inputs[which]}});
          for (size_t i = 0; i < out.size(); ++i) {
            if (!BitwiseEqual(out[i], expected[which][i])) ++mismatches;
          }
        } catch (...) {
          ++errors;
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(errors.load(), 0);
}

TEST(ExecutorConcurrency, EightThreadsTimesFiveHundredRunsOnTheGlobalPools) {
  Session session(runtime::testing::SmallConvNet());
  RunConcurrently(session, 8, 500);
}

TEST(ExecutorConcurrency, ConcurrentRunsOnPrivatePoolsWithInterOpHelpers) {
  SessionOptions options;
  options.use_private_thread_pools = true;
  options.intra_op_threads = 2;
  options.inter_op_threads = 3;
  Session session(runtime::testing::SmallConvNet(), options);
  RunConcurrently(session, 4, 100);
}

TEST(ExecutorConcurrency, SessionsCreatedAndDestroyedWhileOthersRun) {
  SessionOptions options;
  options.use_private_thread_pools = true;
  options.intra_op_threads = 2;
  options.inter_op_threads = 2;
  const Tensor x = RandomTensor(DType::kFloat32, Shape({1, 3, 16, 16}), 3);
  const std::vector<Tensor> expected = Session(runtime::testing::SmallConvNet()).run({{"x", x}});
  std::vector<std::thread> workers;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 3; ++t) {
    workers.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        Session session(runtime::testing::SmallConvNet(), options);
        const std::vector<Tensor> out = session.run({{"x", x}});
        if (!BitwiseEqual(out[0], expected[0])) ++mismatches;
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace loom
