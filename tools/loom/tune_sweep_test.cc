#include "tune_sweep.h"

#include <gtest/gtest.h>

#include "loom/errors.h"

namespace loom::cli {
namespace {

TEST(CandidateThreadCounts, EveryCountToFourThenPowersOfTwoAndTheLimit) {
  EXPECT_EQ(CandidateThreadCounts(1), (std::vector<int>{1}));
  EXPECT_EQ(CandidateThreadCounts(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(CandidateThreadCounts(4), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(CandidateThreadCounts(6), (std::vector<int>{1, 2, 3, 4, 6}));
  EXPECT_EQ(CandidateThreadCounts(8), (std::vector<int>{1, 2, 3, 4, 8}));
  EXPECT_EQ(CandidateThreadCounts(24), (std::vector<int>{1, 2, 3, 4, 8, 16, 24}));
}

TEST(BestCell, LowestLatencyOrHighestThroughputFirstOnTies) {
  std::vector<TuneCell> cells(3);
  cells[0] = {1, 1, 1, {}, 2.0, 0, 500};
  cells[1] = {2, 1, 1, {}, 1.0, 0, 1000};
  cells[2] = {1, 2, 4, {}, 3.0, 0, 1333};
  EXPECT_EQ(&BestCell(cells, false), &cells[1]);
  EXPECT_EQ(&BestCell(cells, true), &cells[2]);
  cells[2].median_ms = 1.0;
  EXPECT_EQ(&BestCell(cells, false), &cells[1]) << "a tie keeps the earlier cell";
  EXPECT_THROW(BestCell({}, false), InvalidArgumentError);
}

Graph SmallGraph() {
  GraphBuilder b("small");
  const std::string x = b.input("x", DType::kFloat32, {"N", 64});
  b.output(b.op("Relu", {x}), "y");
  return b.build();
}

TEST(RunSweep, TimesEveryCellAndBatchTheRequestedNumberOfTimes) {
  SweepOptions options;
  options.intra_counts = {1, 2};
  options.inter_counts = {1};
  options.feeds_by_batch[1] = {{"x", Tensor(DType::kFloat32, Shape({1, 64}))}};
  options.feeds_by_batch[4] = {{"x", Tensor(DType::kFloat32, Shape({4, 64}))}};
  options.iterations = 5;
  options.rounds = 3;
  int64_t last_done = 0, last_total = 0;
  options.progress = [&](int64_t done, int64_t total) {
    EXPECT_EQ(done, last_done + 1);
    last_done = done;
    last_total = total;
  };
  const std::vector<TuneCell> cells = RunSweep(SmallGraph(), options);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0].intra, 1);
  EXPECT_EQ(cells[0].batch, 1);
  EXPECT_EQ(cells[1].batch, 4);
  EXPECT_EQ(cells[2].intra, 2);
  for (const TuneCell& cell : cells) {
    EXPECT_EQ(cell.latencies_ms.size(), 5u);
    EXPECT_GT(cell.median_ms, 0);
    EXPECT_GE(cell.p90_ms, cell.median_ms);
    EXPECT_DOUBLE_EQ(cell.throughput_per_s, static_cast<double>(cell.batch) * 1e3 / cell.median_ms);
  }
  // 2 sessions x 3 rounds x 2 batches of warm-up, plus 2 x 2 x 5 timed runs.
  EXPECT_EQ(last_total, 12 + 20);
  EXPECT_EQ(last_done, last_total);
}

}  // namespace
}  // namespace loom::cli
