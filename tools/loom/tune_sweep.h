// The measurement behind `loom tune`: every (intra, inter) cell of a grid —
// and, for throughput, every batch size — timed on its own Session with
// private thread pools, so cells cannot share warm threads.
//
// Drift (thermal throttling, a noisy neighbour) would favour whichever cells
// ran first, so the sweep runs in rounds: each round visits every cell once
// (alternating direction), creating its session, warming it up and timing a
// share of the iterations. A cell's figure is the median over all rounds.
#pragma once

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
  std::vector<double> latencies_ms;  // every timed run
  double median_ms = 0, p90_ms = 0;
  double throughput_per_s = 0;  // batch / median latency
};

struct SweepOptions {
  std::vector<int> intra_counts, inter_counts;
  // One feed set per batch size to try (batch → feeds).
  std::map<int64_t, std::map<std::string, Tensor>> feeds_by_batch;
  int iterations = 10;  // timed runs per cell and batch
  int rounds = 3;       // at most `iterations`
  // Called after each run with (runs done, runs in total); may be empty.
  std::function<void(int64_t, int64_t)> progress;
};

// Runs the sweep; cells come back ordered by (inter, intra, batch).
// Exceptions from Session construction or runs propagate.
std::vector<TuneCell> RunSweep(const Graph& graph, const SweepOptions& options);

// The best cell: the lowest median latency, or with `throughput` the
// highest throughput. Ties keep the cell with fewer threads (it is listed
// first). Throws loom::InvalidArgumentError for no cells.
const TuneCell& BestCell(const std::vector<TuneCell>& cells, bool throughput);

}  // namespace loom::cli
