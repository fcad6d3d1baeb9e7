#include "tune_sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#include "loom/errors.h"
#include "loom/session.h"
#include "run_report.h"

namespace loom::cli {
namespace {

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", fraction * 100);
  return text;
}

// Median, p90 and throughput from the runs so far.
void Summarize(TuneCell& cell) {
  cell.median_ms = Percentile(cell.latencies_ms, 50);
  cell.p90_ms = Percentile(cell.latencies_ms, 90);
  cell.throughput_per_s =
      cell.median_ms > 0 ? static_cast<double>(cell.batch) * 1e3 / cell.median_ms : 0;
}

}  // namespace

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
        TuneCell& cell = cells.emplace_back();
        cell.intra = intra;
        cell.inter = inter;
        cell.batch = batch;
      }
    }
  }
  const int iterations = std::max(options.iterations, 1);
  const int max_rounds = std::max(options.max_rounds, 1);
  const int rounds = std::clamp(options.rounds, 1, std::min(iterations, max_rounds));
  const int extra_timed = (iterations + rounds - 1) / rounds;
  const int64_t batches = static_cast<int64_t>(options.feeds_by_batch.size());
  const int64_t sessions = static_cast<int64_t>(cells.size()) / std::max<int64_t>(batches, 1);
  // Per round and session: one warm-up run per batch plus the timed ones.
  int64_t total = sessions * batches * (rounds + iterations);
  int64_t done = 0;

  std::optional<size_t> previous_choice;
  for (int round = 0; round < max_rounds; ++round) {
    // The first rounds share the iterations (the first of them take the
    // rest); later ones take ceil(iterations / rounds) each.
    const int timed =
        round < rounds ? iterations / rounds + (round < iterations % rounds ? 1 : 0) : extra_timed;
    if (round >= rounds) total += sessions * batches * (1 + timed);
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
        std::vector<double> this_round;
        for (int i = 0; i < timed; ++i) {
          const auto start = std::chrono::steady_clock::now();
          session.run(feeds);
          const auto end = std::chrono::steady_clock::now();
          this_round.push_back(std::chrono::duration<double, std::milli>(end - start).count());
          if (options.progress) options.progress(++done, total);
        }
        cell.latencies_ms.insert(cell.latencies_ms.end(), this_round.begin(), this_round.end());
        cell.round_medians_ms.push_back(Percentile(this_round, 50));
      }
    }
    for (TuneCell& cell : cells) Summarize(cell);
    const size_t choice = ChooseCell(cells, options.throughput, NoiseBand(cells)).chosen;
    const bool stable = previous_choice == choice;
    previous_choice = choice;
    if (round + 1 >= rounds && stable) break;
  }
  return cells;
}

double NoiseBand(const std::vector<TuneCell>& cells) {
  std::vector<double> bands;
  for (const TuneCell& cell : cells) {
    const std::vector<double>& medians = cell.round_medians_ms;
    const double n = static_cast<double>(medians.size());
    if (medians.size() < 2) continue;
    const double mean = std::accumulate(medians.begin(), medians.end(), 0.0) / n;
    if (mean <= 0) continue;
    double squares = 0;
    for (double m : medians) squares += (m - mean) * (m - mean);
    const double relative_sd = std::sqrt(squares / (n - 1)) / mean;
    bands.push_back(2 * std::sqrt(2 / n) * relative_sd);
  }
  if (bands.empty()) return kMinNoiseBand;
  return std::max(kMinNoiseBand, Percentile(bands, 50));
}

double RelativeShortfall(const TuneCell& cell, const TuneCell& best, bool throughput) {
  if (throughput) {
    return cell.throughput_per_s > 0 ? best.throughput_per_s / cell.throughput_per_s - 1 : 1e300;
  }
  return best.median_ms > 0 ? cell.median_ms / best.median_ms - 1 : 0;
}

TuneChoice ChooseCell(const std::vector<TuneCell>& cells, bool throughput, double noise_band) {
  if (cells.empty()) throw InvalidArgumentError("tune: no cells were measured");
  TuneChoice choice;
  choice.noise_band = noise_band;
  auto better = [&](const TuneCell& a, const TuneCell& b) {
    return throughput ? a.throughput_per_s > b.throughput_per_s : a.median_ms < b.median_ms;
  };
  for (size_t i = 1; i < cells.size(); ++i) {
    if (better(cells[i], cells[choice.fastest])) choice.fastest = i;
  }
  const TuneCell& fastest = cells[choice.fastest];
  for (size_t i = 0; i < cells.size(); ++i) {
    if (RelativeShortfall(cells[i], fastest, throughput) <= noise_band) {
      choice.within_noise.push_back(i);
    }
  }
  choice.chosen = choice.within_noise.front();
  for (size_t i : choice.within_noise) {
    const TuneCell& cell = cells[i];
    const TuneCell& chosen = cells[choice.chosen];
    if (cell.threads() < chosen.threads() ||
        (cell.threads() == chosen.threads() && better(cell, chosen))) {
      choice.chosen = i;
    }
  }
  return choice;
}

std::string SettingName(const TuneCell& cell, bool throughput) {
  std::string name =
      "intra " + std::to_string(cell.intra) + ", inter " + std::to_string(cell.inter);
  if (throughput) name += ", batch " + std::to_string(cell.batch);
  return name;
}

std::string ChoiceVerdict(const std::vector<TuneCell>& cells, const TuneChoice& choice,
                          bool throughput) {
  const TuneCell& chosen = cells.at(choice.chosen);
  const TuneCell& fastest = cells.at(choice.fastest);
  const std::string noise = "\u00b1" + Percent(choice.noise_band) + " %";
  if (cells.size() == 1) return "only one setting was measured: " + SettingName(chosen, throughput);
  if (choice.within_noise.size() > 1) {
    return "no setting is measurably better than " + SettingName(chosen, throughput) + " within " +
           noise + " (the noise): " + std::to_string(choice.within_noise.size()) + " of " +
           std::to_string(cells.size()) + " settings are that close to the fastest (" +
           SettingName(fastest, throughput) + "), and it has the fewest threads among them";
  }
  // The fastest stands alone: how far behind is the runner-up?
  const TuneCell* next = nullptr;
  double next_shortfall = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i == choice.fastest) continue;
    const double shortfall = RelativeShortfall(cells[i], fastest, throughput);
    if (next == nullptr || shortfall < next_shortfall) {
      next = &cells[i];
      next_shortfall = shortfall;
    }
  }
  return SettingName(fastest, throughput) + " is measurably the fastest: the next best (" +
         SettingName(*next, throughput) + ") is " + Percent(next_shortfall) + " % " +
         (throughput ? "behind" : "slower") + ", beyond the " + noise + " noise";
}

}  // namespace loom::cli
