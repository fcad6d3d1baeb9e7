#include "loom/session.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "kernels/testing/kernel_test_util.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "loom/ops.h"
#include "loom/runtime.h"
#include "platform/testing/fresh_process.h"
#include "platform/thread_identity.h"
#include "runtime/testing/test_graphs.h"
#include "threading/parallel_for.h"
#include "threading/runtime.h"

namespace loom {
namespace {

int CountThreadsNamed(const std::string& prefix) {
  int count = 0;
  for (const platform::OsThread& thread : platform::ListProcessThreads()) {
    if (thread.name.rfind(prefix, 0) == 0) ++count;
  }
  return count;
}

TEST(Session, CreatingTheFirstSessionStartsTheRuntimeAndFreezesTheConfiguration) {
  platform::testing::ExpectInFreshProcess([] {
    ASSERT_FALSE(runtime_started());
    config::threading::set_inter_op_parallelism_threads(3);
    Session session(runtime::testing::ChainGraph(2, 4));
    EXPECT_TRUE(runtime_started());
    EXPECT_EQ(session.inter_op_threads(), config::threading::get_inter_op_parallelism_threads());
    EXPECT_THROW(config::threading::set_inter_op_parallelism_threads(2), RuntimeError);
    EXPECT_NO_THROW(config::threading::set_inter_op_parallelism_threads(3));
  });
}

TEST(Session, MatchesTheSameOpsRunEagerly) {
  const Graph graph = runtime::testing::SmallConvNet();
  Session session(graph);
  const Tensor x = kernels::testing::RandomTensor(DType::kFloat32, Shape({2, 3, 16, 16}), 11);
  const std::vector<Tensor> out = session.run({{"x", x}});
  ASSERT_EQ(out.size(), 2u);

  // The same network, op by op through the eager API, on the unoptimized
  // graph's nodes in their topological order.
  std::map<std::string, Tensor> values = graph.initializers;
  values["x"] = x;
  for (size_t index : verify_graph(graph)) {
    const Node& node = graph.nodes[index];
    std::vector<const Tensor*> inputs;
    for (const std::string& input : node.inputs) inputs.push_back(&values.at(input));
    std::vector<Tensor> results = ops::run_optional(node.op_type, inputs, node.attributes);
    for (size_t i = 0; i < node.outputs.size(); ++i) values[node.outputs[i]] = results[i];
  }
  // Fusion changes the order of float operations slightly.
  EXPECT_TENSORS_NEAR(out[0], values.at("logits"), 1e-5, 1e-5);
  EXPECT_TENSORS_NEAR(out[1], values.at("features"), 1e-5, 1e-5);
  EXPECT_EQ(out[0].shape(), Shape({2, 10}));
}

TEST(Session, ListsInputsAndOutputsWithTheirTypes) {
  Session session(runtime::testing::SmallConvNet());
  ASSERT_EQ(session.inputs().size(), 1u);
  EXPECT_EQ(session.inputs()[0].name, "x");
  EXPECT_EQ(session.inputs()[0].type.to_string(), "float32[N, 3, 16, 16]");
  ASSERT_EQ(session.outputs().size(), 2u);
  EXPECT_EQ(session.outputs()[0].name, "logits");
  EXPECT_EQ(session.outputs()[1].name, "features");
}

TEST(Session, OptimizationFusesBiasAndActivationIntoConv) {
  SessionOptions none;
  none.optimization_level = 0;
  Session plain(runtime::testing::SmallConvNet(), none);
  Session optimized(runtime::testing::SmallConvNet());
  EXPECT_LT(optimized.graph().nodes.size(), plain.graph().nodes.size());
  bool fused = false;
  for (const Node& node : optimized.graph().nodes) {
    const bool conv = node.op_type == "Conv" || node.op_type == "NchwcConv";
    if (conv && node.attributes.count("activation")) fused = true;
  }
  EXPECT_TRUE(fused) << optimized.graph().to_string();
}

int CountOpsWithPrefix(const Graph& graph, const std::string& prefix) {
  int count = 0;
  for (const Node& node : graph.nodes) count += node.op_type.rfind(prefix, 0) == 0 ? 1 : 0;
  return count;
}

TEST(Session, BlockedLayoutIsTheDefaultAndCanBeSwitchedOff) {
  Session blocked(runtime::testing::SmallConvNet());
  EXPECT_GT(CountOpsWithPrefix(blocked.graph(), "NchwcConv"), 0) << blocked.graph().to_string();
  SessionOptions nchw;
  nchw.blocked_layout = false;
  Session plain(runtime::testing::SmallConvNet(), nchw);
  EXPECT_EQ(CountOpsWithPrefix(plain.graph(), "Nchwc"), 0) << plain.graph().to_string();
  // Both compute the same function (SmallConvNet's input is [N, 3, 16, 16]).
  const Tensor x = kernels::testing::RandomTensor(DType::kFloat32, Shape({2, 3, 16, 16}), 7);
  const std::string name = plain.graph().inputs[0].name;
  EXPECT_TENSORS_NEAR(blocked.run({{name, x}})[0], plain.run({{name, x}})[0], 1e-4, 1e-5);
}

TEST(Session, PrivatePoolsAreCreatedAndJoinedWithTheSession) {
  platform::testing::ExpectInFreshProcess([] {
    // In a fresh process nothing has started the global runtime, and a
    // session with private pools must not either.
    ASSERT_FALSE(runtime_started());
    const int loom_before = CountThreadsNamed("loom-");
    std::string prefix;
    {
      SessionOptions options;
      options.use_private_thread_pools = true;
      options.intra_op_threads = 3;  // the caller + 2 workers
      options.inter_op_threads = 2;  // the caller + 1 worker
      Session session(runtime::testing::ChainGraph(3, 4), options);
      EXPECT_EQ(session.intra_op_threads(), 3);
      EXPECT_EQ(session.inter_op_threads(), 2);
      // Named for the session ("loom-s<number>-..."), listed with its owner.
      const config::threading::Description d = config::threading::describe();
      ASSERT_EQ(d.threads.size(), 3u);
      prefix = d.threads[0].name.substr(0, d.threads[0].name.find("-intra-") + 1);
      EXPECT_EQ(prefix.rfind("loom-s", 0), 0u) << d.threads[0].name;
      EXPECT_EQ(d.threads[0].owner, "session " + prefix.substr(6, prefix.size() - 7));
      EXPECT_EQ(d.threads[0].name, prefix + "intra-0");
      EXPECT_EQ(d.threads[1].name, prefix + "intra-1");
      EXPECT_EQ(d.threads[2].name, prefix + "inter-0");
      EXPECT_EQ(d.threads[2].pool, "inter_op");
      EXPECT_EQ(CountThreadsNamed(prefix + "intra-"), 2);
      EXPECT_EQ(CountThreadsNamed(prefix + "inter-"), 1);
      EXPECT_EQ(CountThreadsNamed("loom-"), loom_before + 3);
      session.run({{"x", Tensor(DType::kFloat32, {4})}});
      // The global pools were neither started nor frozen.
      EXPECT_FALSE(runtime_started());
      EXPECT_NO_THROW(config::threading::set_intra_op_parallelism_threads(1));
    }
    // A joined thread can stay listed in /proc/self/task for a moment after
    // pthread_join returns (the kernel reaps it asynchronously).
    for (int i = 0; i < 1000 && CountThreadsNamed("loom-") != loom_before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(CountThreadsNamed("loom-"), loom_before);
    EXPECT_TRUE(config::threading::describe().threads.empty());
  });
}

TEST(Session, SequentialRunsEveryNodeOnTheCallerAndCreatesNoInterOpPool) {
  platform::testing::ExpectInFreshProcess([] {
    ASSERT_FALSE(runtime_started());
    SessionOptions options;
    options.use_private_thread_pools = true;
    options.intra_op_threads = 1;
    options.inter_op_threads = 4;  // would run the branches side by side
    options.sequential = true;
    Session session(runtime::testing::FanOutGraph(8, 64), options);
    EXPECT_EQ(session.inter_op_threads(), 1);
    RunOptions run_options;
    run_options.trace = true;
    RunStats stats;
    for (int i = 0; i < 20; ++i) {
      session.run({{"x", Tensor(DType::kFloat32, {64})}}, {}, run_options, &stats);
      ASSERT_FALSE(stats.trace.empty());
      for (const TraceEvent& event : stats.trace) EXPECT_EQ(event.thread, "caller") << event.node;
    }
    // Intra 1 and sequential: the session needs no thread at all.
    EXPECT_TRUE(config::threading::describe().threads.empty());
  });
}

TEST(Session, InvalidGraphIsRejectedAtConstruction) {
  Graph graph = runtime::testing::ChainGraph(3, 4);
  graph.nodes[1].inputs[0] = "missing";
  try {
    Session session(graph);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("'missing'"), std::string::npos) << error.what();
  }
}

TEST(Session, RunsThatMayNotUseTheIntraPoolDoNotKeepItsWorkersSpinning) {
  if (threading::GlobalRuntime().settings().cpu.usable < 2) {
    GTEST_SKIP() << "a spinning worker is told apart by using a second CPU";
  }
  // 40 MatMuls of 256 x 512 x 512: one run of tens of ms on one thread.
  Session session(runtime::testing::TwoBranchGraph(256, 512, 20),
                  runtime::testing::PrivatePools(2, 1));
  Tensor x(DType::kFloat32, {256, 512});
  // Wakes the intra-op worker: it is spinning when the limited run starts.
  session.run({{"x", x}});
  const threading::ScopedParallelismLimit limit(1);
  const auto start = std::chrono::steady_clock::now();
  const double cpu_before = platform::ProcessCpuSeconds();
  session.run({{"x", x}});
  const double cpu = platform::ProcessCpuSeconds() - cpu_before;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The caller runs every node inline (~1 core); a worker spinning through
  // the run (a SpinScope held regardless of the limit) would add another.
  EXPECT_LT(cpu / wall, 1.5) << cpu << " CPU s over " << wall << " s";
}

}  // namespace
}  // namespace loom
