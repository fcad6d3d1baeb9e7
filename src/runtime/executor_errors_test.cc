// How runs fail: a node error mid-graph, cancellation, deadlines, and bad
// feeds or fetches — each a clear error, no hang, the session still usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "kernels/testing/kernel_test_util.h"
#include "loom/errors.h"
#include "loom/graph.h"
#include "loom/memory.h"
#include "loom/session.h"
#include "runtime/testing/test_graphs.h"
#include "tensor/memory_cap.h"

namespace loom {
namespace {

using kernels::testing::ErrorMessageOf;

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

using runtime::testing::PrivatePools;

// x [A, B] → MatMul with a [4, 4] weight → Sqrt → "y" (an op the optimizer
// does not fuse into the MatMul); a second branch
// x → Abs → Neg → "z". Feeding B != 4 fails the MatMul at run time.
Graph GraphThatFailsForWrongWidth() {
  GraphBuilder b("fails");
  const std::string x = b.input("x", DType::kFloat32, {"A", "B"});
  const std::string w = b.constant(Tensor(DType::kFloat32, {4, 4}));
  b.output(b.op("Sqrt", {b.op("MatMul", {x, w}, {}, "mm")}, {}, "after_mm"), "y");
  b.output(b.op("Neg", {b.op("Abs", {x}, {}, "abs")}, {}, "neg"), "z");
  return b.build();
}

TEST(ExecutorErrors, FailingNodeStopsTheStepAndNamesTheNode) {
  for (int inter : {1, 2}) {
    Session session(GraphThatFailsForWrongWidth(), PrivatePools(1, inter));
    RunStats stats;
    try {
      session.run({{"x", Tensor(DType::kFloat32, {3, 5})}}, {}, {}, &stats);
      FAIL() << "expected an error";
    } catch (const InvalidArgumentError& error) {
      const std::string message = error.what();
      EXPECT_TRUE(Contains(message, "node 'mm' (MatMul)"));
      EXPECT_TRUE(Contains(message, "[3, 5]"));  // the cause names the shape
    }
    // The Sqrt after the failed MatMul never ran.
    EXPECT_LT(stats.nodes_run, 4);
    // The session still works with a valid feed.
    const std::vector<Tensor> out = session.run({{"x", Tensor(DType::kFloat32, {3, 4})}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), Shape({3, 4}));
  }
}

TEST(ExecutorErrors, CancelledBeforeStartRunsNothing) {
  Session session(runtime::testing::ChainGraph(20, 64), PrivatePools(1, 2));
  RunOptions options;
  options.cancellation.emplace();
  options.cancellation->cancel();
  RunStats stats;
  EXPECT_THROW(session.run({{"x", Tensor(DType::kFloat32, {64})}}, {}, options, &stats),
               CancelledError);
  EXPECT_EQ(stats.nodes_run, 0);
}

TEST(ExecutorErrors, CancellingFromAnotherThreadStopsBetweenNodes) {
  // 2,000 nodes of 256 K elements: about a second of work, cancelled early.
  Session session(runtime::testing::ChainGraph(2000, 1 << 18), PrivatePools(1, 2));
  RunOptions options;
  options.cancellation.emplace();
  CancellationToken token = *options.cancellation;
  const Tensor x(DType::kFloat32, {1 << 18});
  // Cancels once two nodes' outputs are held at once (the second node is
  // running, so the first has run, however slowly this thread is
  // scheduled); the run is then ~1 s from over.
  const int64_t two_outputs = tensor_bytes_in_use() + 2 * static_cast<int64_t>(x.nbytes());
  std::thread canceller([token, two_outputs]() mutable {
    while (tensor_bytes_in_use() < two_outputs) std::this_thread::yield();
    token.cancel();
  });
  RunStats stats;
  EXPECT_THROW(session.run({{"x", x}}, {}, options, &stats), CancelledError);
  canceller.join();
  EXPECT_GT(stats.nodes_run, 0);
  EXPECT_LT(stats.nodes_run, 2000);
}

TEST(ExecutorErrors, DeadlineStopsALongRun) {
  Session session(runtime::testing::ChainGraph(2000, 1 << 18), PrivatePools(1, 2));
  RunOptions options;
  options.timeout = std::chrono::milliseconds(5);
  RunStats stats;
  try {
    session.run({{"x", Tensor(DType::kFloat32, {1 << 18})}}, {}, options, &stats);
    FAIL() << "expected DeadlineExceededError";
  } catch (const DeadlineExceededError& error) {
    EXPECT_TRUE(Contains(std::string(error.what()), "deadline"));
  }
  EXPECT_LT(stats.nodes_run, 2000);
  // A generous deadline does not fire.
  options.timeout = std::chrono::minutes(10);
  Session small(runtime::testing::ChainGraph(5, 8));
  EXPECT_NO_THROW(small.run({{"x", Tensor(DType::kFloat32, {8})}}, {}, options));
}

TEST(ExecutorErrors, BadFeedsAreRejectedBeforeAnyNodeRuns) {
  Session session(GraphThatFailsForWrongWidth());
  const Tensor good(DType::kFloat32, {2, 4});
  EXPECT_TRUE(Contains(ErrorMessageOf([&] { session.run({}); }),
                       "graph input 'x' (float32[A, B]) was not fed"));
  EXPECT_TRUE(Contains(ErrorMessageOf([&] {
                         session.run({{"x", good}, {"q", good}});
                       }),
                       "'q' is not an input of graph 'fails' (its inputs: 'x')"));
  EXPECT_TRUE(Contains(ErrorMessageOf([&] {
                         session.run({{"x", Tensor(DType::kInt64, {2, 4})}});
                       }),
                       "input 'x' expects float32[A, B], got int64[2, 4] (dtype differs)"));
  EXPECT_TRUE(Contains(ErrorMessageOf([&] {
                         session.run({{"x", Tensor(DType::kFloat32, {8})}});
                       }),
                       "(rank differs)"));
  EXPECT_TRUE(Contains(ErrorMessageOf([&] {
                         session.run({{"x", good}}, {"nope"});
                       }),
                       "no value named 'nope'"));
}

TEST(ExecutorErrors, SymbolicDimensionsBindOnceAcrossInputs) {
  GraphBuilder b("two_inputs");
  const std::string x = b.input("x", DType::kFloat32, {"N", 3});
  const std::string y = b.input("y", DType::kFloat32, {"N", 3});
  b.output(b.op("Add", {x, y}), "sum");
  Session session(b.build());
  EXPECT_NO_THROW(session.run(
      {{"x", Tensor(DType::kFloat32, {5, 3})}, {"y", Tensor(DType::kFloat32, {5, 3})}}));
  EXPECT_TRUE(Contains(ErrorMessageOf([&] {
                         session.run({{"x", Tensor(DType::kFloat32, {5, 3})},
                                      {"y", Tensor(DType::kFloat32, {2, 3})}});
                       }),
                       "dimension 0 'N' is 2, but input 'x' bound it to 5"));
  EXPECT_TRUE(Contains(ErrorMessageOf([&] {
                         session.run({{"x", Tensor(DType::kFloat32, {5, 4})},
                                      {"y", Tensor(DType::kFloat32, {5, 4})}});
                       }),
                       "dimension 1 is 4, expected 3"));
}

TEST(ExecutorErrors, InvalidSessionOptionsAreRejected) {
  SessionOptions negative;
  negative.use_private_thread_pools = true;
  negative.intra_op_threads = -1;
  EXPECT_TRUE(
      Contains(ErrorMessageOf([&] { Session s(runtime::testing::ChainGraph(2, 2), negative); }),
               "thread counts must be >= 0"));
  SessionOptions level;
  level.optimization_level = 3;
  EXPECT_TRUE(
      Contains(ErrorMessageOf([&] { Session s(runtime::testing::ChainGraph(2, 2), level); }),
               "optimization_level must be 0, 1 or 2"));
}

}  // namespace
}  // namespace loom

namespace loom {
namespace {

// The message of the RuntimeError `fn` throws, or "" (any other outcome
// fails the test).
template <typename Fn>
std::string RuntimeErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const RuntimeError& error) {
    return error.what();
  }
  return "";
}

TEST(ExecutorMemory, ARunPastTheSessionsCapFailsBeforeAllocating) {
  // Nodes of 1 MiB outputs: a node runs while its input is held, so a run
  // holds 2 MiB at its peak.
  SessionOptions options;
  options.max_memory_bytes = 3 * (1 << 20) / 2;
  Session capped(runtime::testing::ChainGraph(10, 1 << 18), options);
  const Tensor x(DType::kFloat32, {1 << 18});
  const std::string error = RuntimeErrorOf([&] { capped.run({{"x", x}}); });
  EXPECT_TRUE(Contains(error,
                       "the run's tensors would hold 2097152 bytes, above the session's "
                       "max_memory_bytes of 1572864"))
      << error;
  options.max_memory_bytes = 2 * (1 << 20);
  Session enough(runtime::testing::ChainGraph(10, 1 << 18), options);
  RunStats stats;
  EXPECT_NO_THROW(enough.run({{"x", x}}, {}, {}, &stats));
  EXPECT_EQ(stats.peak_bytes, 2 * (1 << 20));
}

TEST(ExecutorMemory, ARunPastTheProcessCapFailsAndTheSessionStaysUsable) {
  Session session(runtime::testing::ChainGraph(10, 1 << 20));  // 4 MiB per node
  const Tensor x(DType::kFloat32, {1 << 20});
  {
    detail::ScopedMemoryCapForTesting cap(tensor_bytes_in_use() + 6 * (1 << 20));
    const std::string error = RuntimeErrorOf([&] { session.run({{"x", x}}); });
    EXPECT_TRUE(Contains(error, "above the memory cap of")) << error;
    EXPECT_TRUE(Contains(error, "set LOOM_MAX_MEMORY to change it")) << error;
  }
  EXPECT_NO_THROW(session.run({{"x", x}}));
}

// x -> Relu -> Tile(by repeats) -> Relu: the Tile's output has the static
// shape [rows * repeat].
Graph TiledGraph(int64_t rows, int64_t repeat) {
  GraphBuilder b;
  const std::string x = b.input("x", DType::kFloat32, {rows});
  const std::string r = b.op("Relu", {x}, {}, "first");
  const std::string repeats = b.constant(Tensor::from_vector<int64_t>(Shape({1}), {repeat}));
  const std::string t = b.op("Tile", {r, repeats}, {}, "tile");
  b.output(b.op("Relu", {t}, {}, "last"), "y");
  return b.build();
}

TEST(ExecutorMemory, AStaticValuePastTheSessionsCapIsRefusedAtCreation) {
  SessionOptions options;
  options.max_memory_bytes = 1 << 20;
  // 4 bytes * 1024 * 512 = 2 MiB for the Tile's output (and the last Relu's).
  const std::string error =
      RuntimeErrorOf([&] { Session session(TiledGraph(1024, 512), options); });
  EXPECT_TRUE(Contains(error,
                       "(output of node 'tile', Tile) is float32[524288]: 2097152 bytes, "
                       "above the session's max_memory_bytes of 1048576"))
      << error;
  options.max_memory_bytes = 2 * (1 << 20);  // exactly enough for one value
  EXPECT_NO_THROW(Session(TiledGraph(1024, 512), options));
}

TEST(ExecutorMemory, AStaticValuePastTheProcessCapIsRefusedAtCreation) {
  detail::ScopedMemoryCapForTesting cap(tensor_bytes_in_use() + (1 << 20));
  const std::string error = RuntimeErrorOf([&] { Session session(TiledGraph(1024, 1024)); });
  EXPECT_TRUE(Contains(error, "is float32[1048576]: 4194304 bytes, above the memory cap of"))
      << error;
  EXPECT_TRUE(Contains(error, "set LOOM_MAX_MEMORY to change it")) << error;
}

TEST(ExecutorMemory, ASizeThatOverflowsIsRefusedAtCreation) {
  const int64_t huge = int64_t{1} << 40;
  GraphBuilder b;
  const std::string x = b.input("x", DType::kFloat32, {huge, huge});
  b.output(b.op("Relu", {x}, {}, "relu"), "y");
  const std::string error = RuntimeErrorOf([&] { Session session(b.build()); });
  EXPECT_TRUE(Contains(error, "is float32[1099511627776, 1099511627776]: more than 2^63 bytes"))
      << error;
}

TEST(ExecutorMemory, SymbolicDimsAreLeftToTheRun) {
  GraphBuilder b;
  const std::string x = b.input("x", DType::kFloat32, {"N"});
  const std::string repeats =
      b.constant(Tensor::from_vector<int64_t>(Shape({1}), {int64_t{1} << 20}));
  b.output(b.op("Tile", {x, repeats}, {}, "tile"), "y");
  SessionOptions options;
  options.max_memory_bytes = 1 << 20;
  Session session(b.build(), options);  // the size depends on N: not refused here
  const std::string error = RuntimeErrorOf([&] {
    session.run({{"x", Tensor(DType::kFloat32, {1})}});
  });
  EXPECT_TRUE(Contains(error, "above the session's max_memory_bytes of 1048576")) << error;
}

}  // namespace
}  // namespace loom
