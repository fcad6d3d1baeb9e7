#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "loom/session.h"
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
  const nlohmann::json trace = nlohmann::json::parse(stats.chrome_trace_json());
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
