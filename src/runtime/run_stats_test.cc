#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/testing/json.h"
#include "loom/config.h"
#include "loom/session.h"
#include "platform/testing/fresh_process.h"
#include "runtime/testing/test_graphs.h"

namespace loom {
namespace {

TEST(RunStats, ChromeTraceHasOneCompleteEventPerNodeAndNamedThreads) {
  Session session(runtime::testing::TwoBranchGraph(8, 16, 3));
  RunOptions options;
  options.trace = true;
  RunStats stats;
  session.run({{"x", Tensor(DType::kFloat32, {8, 16})}}, {}, options, &stats);
  ASSERT_EQ(stats.trace.size(), 13u);
  const loom::testing::Json trace = loom::testing::Json::parse(stats.chrome_trace_json());
  std::set<std::string> nodes;
  int thread_names = 0;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") == "X") {
      nodes.insert(event.at("name").get<std::string>());
      EXPECT_GE(event.at("dur").get<double>(), 0.0);
      EXPECT_TRUE(event.contains("tid"));
    } else {
      EXPECT_EQ(event.at("ph"), "M");
      ++thread_names;
    }
  }
  EXPECT_EQ(nodes.size(), 13u);
  EXPECT_GE(thread_names, 1);
  for (const TraceEvent& event : stats.trace) {
    EXPECT_LE(event.start_ns, event.end_ns);
    EXPECT_GT(event.tid, 0);
  }
}

TEST(RunStats, TraceShowsIntraOpHelpersShareOfEachNode) {
  platform::testing::ExpectInFreshProcess([] {
    // intra 2: big MatMuls split over the caller and one loom-s<N>-intra
    // worker; each helper's span is an event of its own, inside its node's.
    Session session(runtime::testing::TwoBranchGraph(256, 256, 2),
                    runtime::testing::PrivatePools(2, 1));
    // A process of its own: the session's worker is the only Loom thread.
    const config::threading::Description d = config::threading::describe();
    ASSERT_EQ(d.threads.size(), 1u);
    const std::string worker = d.threads[0].name;
    RunOptions options;
    options.trace = true;
    RunStats stats;
    // The helper may find every shard taken (a busy CPU): try a few runs.
    int helper_events = 0;
    for (int attempt = 0; attempt < 20 && helper_events == 0; ++attempt) {
      session.run({{"x", Tensor(DType::kFloat32, {256, 256})}}, {}, options, &stats);
      helper_events =
          static_cast<int>(std::count_if(stats.trace.begin(), stats.trace.end(),
                                         [](const TraceEvent& e) { return e.intra_op_helper; }));
    }
    ASSERT_GT(helper_events, 0) << "no helper took part in 20 runs";
    std::map<std::string, const TraceEvent*> nodes;
    for (const TraceEvent& event : stats.trace) {
      if (!event.intra_op_helper) nodes[event.node] = &event;
    }
    EXPECT_EQ(nodes.size(), 9u);  // 2 x 2 x (MatMul, Abs) + join
    for (const TraceEvent& event : stats.trace) {
      if (!event.intra_op_helper) continue;
      EXPECT_EQ(event.thread, worker);
      EXPECT_EQ(event.tid, d.threads[0].tid);
      ASSERT_EQ(nodes.count(event.node), 1u) << event.node;
      const TraceEvent& node = *nodes[event.node];
      EXPECT_EQ(event.op, node.op);
      EXPECT_NE(event.tid, node.tid);
      EXPECT_GE(event.start_ns, node.start_ns) << event.node;
      EXPECT_LE(event.end_ns, node.end_ns) << event.node;
      EXPECT_LE(event.start_ns, event.end_ns);
    }
    // The profile counts nodes, not helper spans.
    int64_t calls = 0;
    for (const OpProfile& op : stats.op_profile()) calls += op.calls;
    EXPECT_EQ(calls, 9);
    // The Chrome trace names the helper's track and marks its events.
    const loom::testing::Json trace = loom::testing::Json::parse(stats.chrome_trace_json());
    int helper_json = 0;
    bool named = false;
    for (const auto& event : trace.at("traceEvents")) {
      if (event.at("ph") == "X" && event.at("args").at("role") == "intra-op helper") ++helper_json;
      if (event.at("ph") == "M" && event.at("args").at("name") == worker) named = true;
    }
    EXPECT_EQ(helper_json, helper_events);
    EXPECT_TRUE(named);
  });
}

TEST(RunStats, OpProfileSumsCallsAndShares) {
  RunStats stats;
  stats.trace = {{"a", "Conv", 0, 3'000'000, "caller", 1},
                 {"b", "Relu", 3'000'000, 4'000'000, "caller", 1},
                 {"c", "Conv", 4'000'000, 8'000'000, "loom-inter-0", 2}};
  const std::vector<OpProfile> profile = stats.op_profile();
  ASSERT_EQ(profile.size(), 2u);
  EXPECT_EQ(profile[0].op, "Conv");
  EXPECT_EQ(profile[0].calls, 2);
  EXPECT_DOUBLE_EQ(profile[0].total_ms, 7.0);
  EXPECT_DOUBLE_EQ(profile[0].share, 0.875);
  EXPECT_EQ(profile[1].op, "Relu");
  EXPECT_DOUBLE_EQ(profile[1].share, 0.125);
}

TEST(RunStats, NoTraceUnlessAsked) {
  Session session(runtime::testing::ChainGraph(4, 4));
  RunStats stats;
  session.run({{"x", Tensor(DType::kFloat32, {4})}}, {}, {}, &stats);
  EXPECT_TRUE(stats.trace.empty());
  EXPECT_EQ(stats.nodes_run, 4);
  EXPECT_GE(stats.wall_ms, 0.0);
}

}  // namespace
}  // namespace loom
