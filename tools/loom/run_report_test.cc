#include "run_report.h"

#include <gtest/gtest.h>

#include "base/testing/json.h"

namespace loom::cli {
namespace {

TEST(Percentile, InterpolatesBetweenRanksLikeNumPy) {
  // numpy.percentile([4, 1, 3, 2], q) for q = 0, 50, 90, 99, 100.
  const std::vector<double> values = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(Percentile(values, 0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile(values, 50), 2.5);
  EXPECT_NEAR(Percentile(values, 90), 3.7, 1e-9);
  EXPECT_NEAR(Percentile(values, 99), 3.97, 1e-9);
  EXPECT_DOUBLE_EQ(Percentile(values, 100), 4.0);
  EXPECT_DOUBLE_EQ(Percentile({7}, 99), 7.0);
  EXPECT_DOUBLE_EQ(Percentile({}, 50), 0.0);
}

TEST(Percentile, SummaryHasMeanAndOrderedPercentiles) {
  std::vector<double> values;
  for (int i = 1; i <= 100; ++i) values.push_back(i);
  const LatencySummary s = SummarizeLatencies(values);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_NEAR(s.p90, 90.1, 1e-9);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
}

TEST(CountThreads, ClassifiesByPoolPrefixAndSkipsTheMainThread) {
  const std::vector<platform::OsThread> threads = {
      {100, "loom"},        {101, "loom-intra-0"}, {102, "loom-intra-1"}, {103, "loom-inter-0"},
      {104, "loom-data-0"}, {105, "loom"},         {106, "grpc_worker"}};
  const ThreadCensus c = CountThreads(threads, 100);
  EXPECT_EQ(c.total, 7);
  EXPECT_EQ(c.intra_op, 2);
  EXPECT_EQ(c.inter_op, 1);
  EXPECT_EQ(c.data, 1);
  EXPECT_EQ(c.other, 2);  // tid 105 has the process's name but is not the main thread
}

TEST(Checksum, SumsEveryDtype) {
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<float>({3}, {0.5f, -1.0f, 2.0f})), 1.5);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<double>({2}, {1e-9, 1.0})), 1.0 + 1e-9);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<int64_t>({2}, {int64_t{1} << 40, -1})),
                   1099511627775.0);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<int8_t>({2}, {-128, 127})), -1.0);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<uint8_t>({2}, {200, 100})), 300.0);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<int32_t>({1}, {-7})), -7.0);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<bool>({3}, {true, false, true})), 2.0);
  EXPECT_DOUBLE_EQ(Checksum(Tensor::from_vector<Float16>({2}, {Float16(0.25f), Float16(2.0f)})),
                   2.25);
  EXPECT_DOUBLE_EQ(Checksum(Tensor(DType::kFloat32, Shape({0}))), 0.0);
}

TEST(RunReport, JsonHasTheIssueKeys) {
  RunReport r;
  r.model = "demo";
  r.intra_op_threads = 2;
  r.inter_op_threads = 1;
  r.batch = 4;
  r.iterations = 20;
  r.latency_ms = {1, 2, 3, 1.5};
  r.outputs.push_back({"probabilities", DType::kFloat32, {4, 10}, 4.0});
  const loom::testing::Json j = loom::testing::Json::parse(r.ToJson());
  for (const char* key :
       {"model", "intra_op_threads", "inter_op_threads", "batch", "iterations", "latency_ms",
        "throughput_per_s", "cpu_cores_used", "threads", "peak_rss_mb", "outputs"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  for (const char* key : {"p50", "p90", "p99", "mean"}) EXPECT_TRUE(j["latency_ms"].contains(key));
  for (const char* key : {"total", "intra_op", "inter_op", "data", "other"}) {
    EXPECT_TRUE(j["threads"].contains(key)) << key;
  }
  EXPECT_EQ(j["outputs"][0]["name"], "probabilities");
  EXPECT_EQ(j["outputs"][0]["shape"], loom::testing::Json::array({4, 10}));
  EXPECT_DOUBLE_EQ(j["outputs"][0]["checksum"].get<double>(), 4.0);
  EXPECT_FALSE(j.contains("saved_outputs"));
  EXPECT_NE(r.ToText().find("probabilities"), std::string::npos);
}

TEST(RunReport, SetupTimesAndHistogramAreInTextAndJson) {
  RunReport r;
  r.load_ms = 12.5;
  r.optimize_ms = 3.25;
  r.histogram = LatencyHistogram({1.0, 1.0, 1.1, 2.0});
  const loom::testing::Json j = loom::testing::Json::parse(r.ToJson());
  EXPECT_DOUBLE_EQ(j["load_ms"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(j["optimize_ms"].get<double>(), 3.25);
  ASSERT_EQ(j["latency_histogram"].size(), 2u);
  EXPECT_EQ(j["latency_histogram"][0]["count"], 3);
  EXPECT_EQ(j["latency_histogram"][1]["count"], 1);
  EXPECT_DOUBLE_EQ(j["latency_histogram"][1]["hi_ms"].get<double>(), 2.0);
  const std::string text = r.ToText();
  EXPECT_NE(text.find("load 12.500 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("optimize 3.250 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("histogram    1.000-1.414 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("\n             1.414-2.000 ms"), std::string::npos) << text;
}

TEST(PeakRss, IsPositiveAndPlausible) {
  const double mb = PeakRssMb();
  EXPECT_GT(mb, 0.5);
  EXPECT_LT(mb, 1 << 20);
}

}  // namespace
}  // namespace loom::cli
