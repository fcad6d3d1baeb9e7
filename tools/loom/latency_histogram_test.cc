#include "latency_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace loom::cli {
namespace {

int Total(const std::vector<HistogramBucket>& buckets) {
  return std::accumulate(buckets.begin(), buckets.end(), 0,
                         [](int sum, const HistogramBucket& b) { return sum + b.count; });
}

TEST(LatencyHistogram, SqrtOfTheRunsLogSpacedBucketsHoldingEveryRun) {
  std::vector<double> ms;
  for (int i = 0; i < 20; ++i) ms.push_back(1.0 + 0.01 * i);
  ms.push_back(8.0);  // one slow run: its own bucket, far from the others
  const std::vector<HistogramBucket> buckets = LatencyHistogram(ms);
  ASSERT_EQ(buckets.size(), 5u);  // ceil(sqrt(21))
  EXPECT_EQ(Total(buckets), 21);
  EXPECT_DOUBLE_EQ(buckets.front().lo_ms, 1.0);
  EXPECT_DOUBLE_EQ(buckets.back().hi_ms, 8.0);
  for (size_t b = 0; b < buckets.size(); ++b) {
    // Every bucket spans the same ratio: 8^(1/5).
    EXPECT_NEAR(buckets[b].hi_ms / buckets[b].lo_ms, std::pow(8.0, 0.2), 1e-9) << b;
    if (b > 0) {
      EXPECT_DOUBLE_EQ(buckets[b].lo_ms, buckets[b - 1].hi_ms);
    }
  }
  EXPECT_EQ(buckets.front().count, 20);
  EXPECT_EQ(buckets.back().count, 1);
}

TEST(LatencyHistogram, EqualValuesShareOneBucketAndNoValuesNone) {
  const std::vector<HistogramBucket> same = LatencyHistogram({2.0, 2.0, 2.0, 2.0, 2.0});
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].count, 5);
  EXPECT_TRUE(LatencyHistogram({}).empty());
  EXPECT_EQ(LatencyHistogram(std::vector<double>(1000, 1.0)).size(), 1u);
  std::vector<double> many;
  for (int i = 1; i <= 1000; ++i) many.push_back(i);
  EXPECT_EQ(LatencyHistogram(many).size(), 8u) << "at most max_buckets";
  EXPECT_EQ(Total(LatencyHistogram(many)), 1000);
}

TEST(HistogramLines, BarsAreProportionalAndColumnsAligned) {
  const std::vector<std::string> lines =
      HistogramLines({{1.0, 2.0, 10}, {2.0, 4.0, 5}, {4.0, 8.0, 0}, {8.0, 16.0, 1}}, 10);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "1.000-2.000 ms   ##########  10");
  EXPECT_EQ(lines[1], "2.000-4.000 ms   #####        5");
  EXPECT_EQ(lines[2], "4.000-8.000 ms                0");
  EXPECT_EQ(lines[3], "8.000-16.000 ms  #            1") << "a single run still shows";
}

}  // namespace
}  // namespace loom::cli
