#include "tune_sweep.h"

#include <algorithm>
#include <chrono>

#include "loom/errors.h"
#include "loom/session.h"
#include "run_report.h"

namespace loom::cli {

std::vector<int> CandidateThreadCounts(int limit) {
  std::vector<int> counts;
  for (int n = 1; n <= std::min(limit, 4); ++n) counts.push_back(n);
  for (int n = 8; n < limit; n *= 2) counts.push_back(n);
  if (limit > 4 && counts.back() != limit) counts.push_back(limit);
  return counts;
}

std::vector<TuneCell> RunSweep(const Graph& graph, const SweepOptions& options) {
  std::vector<TuneCell> cells;
  for (int inter : options.inter_counts) {
    for (int intra : options.intra_counts) {
      for (const auto& [batch, feeds] : options.feeds_by_batch) {
        cells.push_back({intra, inter, batch, {}, 0, 0, 0});
      }
    }
  }
  const int rounds = std::clamp(options.rounds, 1, std::max(options.iterations, 1));
  const int64_t batches = static_cast<int64_t>(options.feeds_by_batch.size());
  const int64_t sessions = static_cast<int64_t>(cells.size()) / std::max<int64_t>(batches, 1);
  // Per round and session: one warm-up run per batch plus the timed ones.
  const int64_t total = sessions * (rounds * batches) + sessions * batches * options.iterations;
  int64_t done = 0;

  for (int round = 0; round < rounds; ++round) {
    // This round's share of the iterations; the first rounds take the rest.
    const int timed = options.iterations / rounds + (round < options.iterations % rounds ? 1 : 0);
    for (int64_t k = 0; k < sessions; ++k) {
      const int64_t s = round % 2 == 0 ? k : sessions - 1 - k;
      const TuneCell& first = cells[static_cast<size_t>(s * batches)];
      SessionOptions session_options;
      session_options.use_private_thread_pools = true;
      session_options.intra_op_threads = first.intra;
      session_options.inter_op_threads = first.inter;
      const Session session(graph, session_options);
      int64_t b = 0;
      for (const auto& [batch, feeds] : options.feeds_by_batch) {
        TuneCell& cell = cells[static_cast<size_t>(s * batches + b++)];
        session.run(feeds);  // warm-up: packing, buffers, the hand-off averages
        if (options.progress) options.progress(++done, total);
        for (int i = 0; i < timed; ++i) {
          const auto start = std::chrono::steady_clock::now();
          session.run(feeds);
          const auto end = std::chrono::steady_clock::now();
          cell.latencies_ms.push_back(
              std::chrono::duration<double, std::milli>(end - start).count());
          if (options.progress) options.progress(++done, total);
        }
      }
    }
  }
  for (TuneCell& cell : cells) {
    cell.median_ms = Percentile(cell.latencies_ms, 50);
    cell.p90_ms = Percentile(cell.latencies_ms, 90);
    cell.throughput_per_s =
        cell.median_ms > 0 ? static_cast<double>(cell.batch) * 1e3 / cell.median_ms : 0;
  }
  return cells;
}

const TuneCell& BestCell(const std::vector<TuneCell>& cells, bool throughput) {
  if (cells.empty()) throw InvalidArgumentError("tune: no cells were measured");
  const TuneCell* best = &cells.front();
  for (const TuneCell& cell : cells) {
    const bool better = throughput ? cell.throughput_per_s > best->throughput_per_s
                                   : cell.median_ms < best->median_ms;
    if (better) best = &cell;
  }
  return *best;
}

}  // namespace loom::cli
