// The measurement behind `loom tune`, and the choice it leads to.
//
// Measuring: every (intra, inter) cell of a grid — and, for throughput,
// every batch size — is timed on its own Session with private thread pools,
// so cells cannot share warm threads. Drift (thermal throttling, a noisy
// neighbour) would favour whichever cells ran first, so the sweep runs in
// rounds: each round visits every cell once (alternating direction),
// creating its session, warming it up and timing a share of the iterations.
// A cell's figure is the median over all its runs; the medians of its
// rounds show how much that figure moves between repeats.
//
// Choosing: differences smaller than the noise (NoiseBand, from the spread
// of the round medians) are not evidence, so among the cells within the
// noise of the fastest the one with the fewest threads is recommended
// (ChooseCell). Rounds are added, up to a limit, until that choice is the
// same after two rounds in a row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "loom/graph.h"
#include "loom/tensor.h"

namespace loom::cli {

// The thread counts a sweep tries up to `limit` (>= 1): every count to 4,
// then powers of two, then `limit` itself — 1, 2, 3, 4, 8, 16, 24 for 24.
std::vector<int> CandidateThreadCounts(int limit);

struct TuneCell {
  int intra = 1, inter = 1;
  int64_t batch = 1;
  std::vector<double> latencies_ms;      // every timed run
  std::vector<double> round_medians_ms;  // the median of each round's runs
  double median_ms = 0, p90_ms = 0;      // over every run
  double throughput_per_s = 0;           // batch / median latency

  int threads() const { return intra + inter; }
};

struct SweepOptions {
  std::vector<int> intra_counts, inter_counts;
  // One feed set per batch size to try (batch → feeds).
  std::map<int64_t, std::map<std::string, Tensor>> feeds_by_batch;
  int iterations = 10;  // timed runs per cell and batch over the first `rounds` rounds
  int rounds = 3;       // rounds always run (at most `iterations` and `max_rounds`)
  // Later rounds, of ceil(iterations / rounds) runs each, run until the
  // choice is stable or this many rounds have run.
  int max_rounds = 8;
  bool throughput = false;  // the objective the choice is made for
  // Called after each run with (runs done, runs in total); the total grows
  // when a round is added. May be empty.
  std::function<void(int64_t, int64_t)> progress;
};

// Runs the sweep; cells come back ordered by (inter, intra, batch).
// Exceptions from Session construction or runs propagate.
std::vector<TuneCell> RunSweep(const Graph& graph, const SweepOptions& options);

// Differences under 1 % are not worth a setting change, however steady the
// machine: a guess, below what repeated runs of tune reproduce.
inline constexpr double kMinNoiseBand = 0.01;

// The relative noise of a sweep: two cells whose figures differ by less
// than this fraction are not measurably different. Twice the standard error
// of the difference of two cells' figures — 2 * sqrt(2 / rounds) * the
// relative standard deviation of a cell's round medians — taking the median
// over cells (one disturbed cell does not widen it for all), and at least
// kMinNoiseBand (also when no cell has two rounds).
double NoiseBand(const std::vector<TuneCell>& cells);

// How much worse `cell` is than `best` as a fraction (0.05: 5 % slower, or
// best's throughput 5 % above the cell's); 0 or less when it is not worse.
double RelativeShortfall(const TuneCell& cell, const TuneCell& best, bool throughput);

struct TuneChoice {
  size_t fastest = 0;  // index of the best figure: lowest median latency or highest throughput
  size_t chosen = 0;   // index of the recommendation (see ChooseCell)
  double noise_band = 0;
  std::vector<size_t> within_noise;  // cells within noise_band of the fastest, in order
};

// The fastest cell for the objective, and the recommended one: among the
// cells within `noise_band` of the fastest, the one with the fewest threads
// (intra + inter), then the better figure, then the first. Throws
// loom::InvalidArgumentError for no cells.
TuneChoice ChooseCell(const std::vector<TuneCell>& cells, bool throughput, double noise_band);

// "intra 2, inter 1" (and ", batch 8" for throughput).
std::string SettingName(const TuneCell& cell, bool throughput);

// One sentence on what the choice means: "no setting is measurably better
// than intra 1, inter 1 within ±3.0 % ..." when other settings are within
// the noise of the fastest, else how far ahead the fastest is.
std::string ChoiceVerdict(const std::vector<TuneCell>& cells, const TuneChoice& choice,
                          bool throughput);

}  // namespace loom::cli
