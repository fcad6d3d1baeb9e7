#include "tune_sweep.h"

#include <gtest/gtest.h>

#include <cmath>

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

// A measured cell: `median_ms` at batch `batch`, and round medians.
TuneCell Cell(int intra, int inter, double median_ms, int64_t batch = 1,
              std::vector<double> round_medians_ms = {}) {
  TuneCell cell;
  cell.intra = intra;
  cell.inter = inter;
  cell.batch = batch;
  cell.median_ms = median_ms;
  cell.throughput_per_s = static_cast<double>(batch) * 1e3 / median_ms;
  cell.round_medians_ms = std::move(round_medians_ms);
  return cell;
}

TEST(ChooseCell, WithinTheNoiseTheFewestThreadsWin) {
  // A 2 % spread under 3 % noise: the fastest (intra 2, inter 2) is not
  // measurably better than one thread each.
  const std::vector<TuneCell> cells = {Cell(1, 1, 1.02), Cell(2, 1, 1.01), Cell(1, 2, 1.015),
                                       Cell(2, 2, 1.00)};
  const TuneChoice choice = ChooseCell(cells, false, 0.03);
  EXPECT_EQ(choice.fastest, 3u);
  EXPECT_EQ(choice.chosen, 0u);
  EXPECT_EQ(choice.within_noise, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(choice.noise_band, 0.03);
}

TEST(ChooseCell, AClearlyFasterCellWins) {
  // intra 2 is twice as fast; intra 2 / inter 2 ties it within the noise
  // but uses more threads.
  const std::vector<TuneCell> cells = {Cell(1, 1, 2.0), Cell(2, 1, 1.0), Cell(1, 2, 2.1),
                                       Cell(2, 2, 1.01)};
  const TuneChoice choice = ChooseCell(cells, false, 0.03);
  EXPECT_EQ(choice.fastest, 1u);
  EXPECT_EQ(choice.chosen, 1u);
  EXPECT_EQ(choice.within_noise, (std::vector<size_t>{1, 3}));
}

TEST(ChooseCell, EqualThreadCountsPreferTheBetterFigure) {
  const std::vector<TuneCell> cells = {Cell(1, 2, 1.02), Cell(2, 1, 1.01), Cell(3, 3, 1.0)};
  EXPECT_EQ(ChooseCell(cells, false, 0.05).chosen, 1u);
}

TEST(ChooseCell, ThroughputComparesItemsPerSecondWithTheSameBand) {
  // Batch 8 on one thread each: 8000 items/s; batch 8 on intra 4: 8200.
  const std::vector<TuneCell> cells = {Cell(1, 1, 1.0, 1), Cell(1, 1, 1.0, 8),
                                       Cell(4, 1, 8.0 / 8.2, 8)};
  const TuneChoice noisy = ChooseCell(cells, true, 0.03);
  EXPECT_EQ(noisy.fastest, 2u);
  EXPECT_EQ(noisy.chosen, 1u);
  const TuneChoice quiet = ChooseCell(cells, true, 0.01);
  EXPECT_EQ(quiet.chosen, 2u) << "2.5 % more items/s is beyond 1 % noise";
  EXPECT_THROW(ChooseCell({}, false, 0.03), InvalidArgumentError);
}

TEST(ChoiceVerdict, SaysWhenNoSettingIsMeasurablyBetter) {
  const std::vector<TuneCell> close = {Cell(1, 1, 1.02), Cell(2, 1, 1.01), Cell(1, 2, 1.015),
                                       Cell(2, 2, 1.00)};
  EXPECT_EQ(ChoiceVerdict(close, ChooseCell(close, false, 0.03), false),
            "no setting is measurably better than intra 1, inter 1 within \u00b13.0 % (the noise): "
            "4 of 4 settings are that close to the fastest (intra 2, inter 2), and it has the "
            "fewest threads among them");
  const std::vector<TuneCell> apart = {Cell(1, 1, 2.0), Cell(2, 1, 1.0), Cell(1, 2, 2.1)};
  EXPECT_EQ(ChoiceVerdict(apart, ChooseCell(apart, false, 0.03), false),
            "intra 2, inter 1 is measurably the fastest: the next best (intra 1, inter 1) is "
            "100.0 % slower, beyond the \u00b13.0 % noise");
  const std::vector<TuneCell> one = {Cell(1, 1, 1.0, 4)};
  EXPECT_EQ(ChoiceVerdict(one, ChooseCell(one, true, 0.03), true),
            "only one setting was measured: intra 1, inter 1, batch 4");
}

TEST(NoiseBand, TwiceTheStandardErrorOfADifferenceFromRoundMedians) {
  // Round medians 0.9, 1.0, 1.1: relative sd 0.1, so 2 * sqrt(2/3) * 0.1.
  const std::vector<TuneCell> cells = {Cell(1, 1, 1.0, 1, {0.9, 1.0, 1.1})};
  EXPECT_NEAR(NoiseBand(cells), 2 * std::sqrt(2.0 / 3) * 0.1, 1e-12);
}

TEST(NoiseBand, MedianOverCellsWithAFloor) {
  const std::vector<TuneCell> cells = {Cell(1, 1, 1.0, 1, {0.9, 1.0, 1.1}),
                                       Cell(2, 1, 1.0, 1, {0.9, 1.0, 1.1}),
                                       Cell(1, 2, 1.0, 1, {0.1, 1.0, 3.0})};  // disturbed
  EXPECT_NEAR(NoiseBand(cells), 2 * std::sqrt(2.0 / 3) * 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(NoiseBand({Cell(1, 1, 1.0, 1, {1.0, 1.0, 1.0})}), kMinNoiseBand);
  EXPECT_DOUBLE_EQ(NoiseBand({Cell(1, 1, 1.0, 1, {1.0})}), kMinNoiseBand) << "one round";
  EXPECT_DOUBLE_EQ(NoiseBand({}), kMinNoiseBand);
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
  options.max_rounds = 3;
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
    EXPECT_EQ(cell.round_medians_ms.size(), 3u);
    EXPECT_GT(cell.median_ms, 0);
    EXPECT_GE(cell.p90_ms, cell.median_ms);
    EXPECT_DOUBLE_EQ(cell.throughput_per_s, static_cast<double>(cell.batch) * 1e3 / cell.median_ms);
  }
  // 2 sessions x 3 rounds x 2 batches of warm-up, plus 2 x 2 x 5 timed runs.
  EXPECT_EQ(last_total, 12 + 20);
  EXPECT_EQ(last_done, last_total);
}

TEST(RunSweep, AddsRoundsUntilTheChoiceIsStableOrTheLimit) {
  SweepOptions options;
  options.intra_counts = {1, 2};
  options.inter_counts = {1};
  options.feeds_by_batch[1] = {{"x", Tensor(DType::kFloat32, Shape({1, 64}))}};
  options.iterations = 4;
  options.rounds = 2;
  options.max_rounds = 5;
  int64_t last_done = 0, last_total = 0;
  options.progress = [&](int64_t done, int64_t total) {
    last_done = done;
    last_total = total;
  };
  const std::vector<TuneCell> cells = RunSweep(SmallGraph(), options);
  ASSERT_EQ(cells.size(), 2u);
  const size_t rounds = cells[0].round_medians_ms.size();
  EXPECT_GE(rounds, 2u);
  EXPECT_LE(rounds, 5u);
  for (const TuneCell& cell : cells) {
    EXPECT_EQ(cell.round_medians_ms.size(), rounds);
    // 4 runs over the first 2 rounds, then 2 a round.
    EXPECT_EQ(cell.latencies_ms.size(), 4 + 2 * (rounds - 2));
  }
  EXPECT_EQ(last_done, last_total) << "the total grew with each added round";
}

}  // namespace
}  // namespace loom::cli
