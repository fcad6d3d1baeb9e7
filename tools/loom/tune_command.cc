// `loom tune [MODEL] [--objective latency|throughput] [--max-threads N]
// [--out DIR] [--iterations N] [--max-rounds N] [--batch B] [--max-batch B]`:
// which thread settings should I use? Sweeps (intra, inter) — and the batch
// size for throughput — on this machine in rounds until the pick is stable
// (tune_sweep.h), prints a table, the noise, whether any setting is
// measurably better, and the pick (the fewest threads within the noise of
// the fastest) as environment lines, and writes DIR/tune.svg (a heatmap
// shaded in noise bands) and DIR/tune.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "heatmap_svg.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "model_source.h"
#include "output_files.h"
#include "progress_bar.h"
#include "tune_sweep.h"

namespace loom::cli {
namespace {

namespace threading = config::threading;

constexpr int kDefaultIterations = 10;
constexpr int kDefaultMaxBatch = 8;
// Three rounds give each cell a spread to estimate the noise from; eight
// bound the time a noisy machine can take (most sweeps settle by then).
constexpr int kMinRounds = 3;
constexpr int kDefaultMaxRounds = 8;

struct TuneFlags {
  ModelFlags model;
  bool throughput = false;
  std::optional<int> max_threads;
  std::string out_dir = ".";
  int iterations = kDefaultIterations;
  int max_rounds = kDefaultMaxRounds;
  int max_batch = kDefaultMaxBatch;
};

TuneFlags ParseFlags(const std::vector<std::string>& args) {
  TuneFlags out;
  FlagReader flags("tune", args);
  while (flags.Next()) {
    if (flags.Is("--intra") || flags.Is("--inter")) {
      throw UsageError("tune: " + flags.current() +
                       " is what tune sweeps; limit the sweep with --max-threads N");
    }
    if (ParseModelFlag(flags, out.model)) continue;
    if (flags.Is("--objective")) {
      const std::string objective = flags.StringValue();
      if (objective != "latency" && objective != "throughput") {
        throw UsageError("tune: --objective must be 'latency' or 'throughput', got '" + objective +
                         "'");
      }
      out.throughput = objective == "throughput";
    } else if (flags.Is("--max-threads")) {
      out.max_threads = static_cast<int>(flags.IntValue(1, threading::kMaxThreads));
    } else if (flags.Is("--out")) {
      out.out_dir = flags.StringValue();
    } else if (flags.Is("--iterations")) {
      out.iterations = static_cast<int>(flags.IntValue(1, 100'000));
    } else if (flags.Is("--max-rounds")) {
      out.max_rounds = static_cast<int>(flags.IntValue(1, 100));
    } else if (flags.Is("--max-batch")) {
      out.max_batch = static_cast<int>(flags.IntValue(1, 4096));
    } else {
      flags.Unknown();
    }
  }
  if (out.throughput && out.model.batch) {
    throw UsageError("tune: --objective throughput sweeps the batch size; use --max-batch B");
  }
  return out;
}

// Batch sizes to try: powers of two up to max_batch when the model has a
// batch dimension and no --input file fixes it; else the one batch there is.
std::map<int64_t, std::map<std::string, Tensor>> FeedsByBatch(const TuneFlags& flags,
                                                              const Graph& graph) {
  const std::map<std::string, Tensor> given = ReadInputFiles(flags.model.inputs);
  const Feeds first = BuildFeeds(graph, flags.model.batch, given);
  std::map<int64_t, std::map<std::string, Tensor>> feeds{{first.batch, first.tensors}};
  if (!flags.throughput || first.batch_symbol.empty() || !given.empty()) return feeds;
  for (int64_t batch = 2; batch <= flags.max_batch; batch *= 2) {
    feeds[batch] = BuildFeeds(graph, batch, given).tensors;
  }
  return feeds;
}

std::string Fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f", digits, value);
  return text;
}

Heatmap MakeHeatmap(const std::vector<TuneCell>& cells, const TuneChoice& choice,
                    const std::vector<int>& intra, const std::vector<int>& inter,
                    const std::string& model, bool throughput) {
  Heatmap h;
  h.title = "loom tune: " + model + (throughput ? " (throughput)" : " (median latency)");
  h.x_label = "intra-op threads";
  h.y_label = "inter-op threads";
  h.x_values = intra;
  h.y_values = inter;
  h.unit = throughput ? "items/s" : "ms";
  h.higher_is_better = throughput;
  h.noise_band = choice.noise_band;
  const TuneCell& chosen = cells[choice.chosen];
  for (size_t x = 0; x < intra.size(); ++x) {
    if (intra[x] == chosen.intra) h.outline_x = x;
  }
  for (size_t y = 0; y < inter.size(); ++y) {
    if (inter[y] == chosen.inter) h.outline_y = y;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  h.values.assign(inter.size(), std::vector<double>(intra.size(), nan));
  if (throughput) h.notes.assign(inter.size(), std::vector<std::string>(intra.size()));
  for (size_t y = 0; y < inter.size(); ++y) {
    for (size_t x = 0; x < intra.size(); ++x) {
      for (const TuneCell& cell : cells) {
        if (cell.intra != intra[x] || cell.inter != inter[y]) continue;
        double& value = h.values[y][x];
        const double candidate = throughput ? cell.throughput_per_s : cell.median_ms;
        if (std::isnan(value) || (throughput && candidate > value)) {
          value = candidate;
          if (throughput) h.notes[y][x] = "batch " + std::to_string(cell.batch);
        }
      }
    }
  }
  return h;
}

std::string ResultJson(const TuneFlags& flags, const std::string& model, int usable, int limit,
                       const std::vector<TuneCell>& cells, const TuneChoice& choice) {
  auto setting = [](const TuneCell& cell) {
    return nlohmann::ordered_json{{"intra_op_threads", cell.intra},
                                  {"inter_op_threads", cell.inter},
                                  {"batch", cell.batch},
                                  {"median_ms", cell.median_ms},
                                  {"throughput_per_s", cell.throughput_per_s}};
  };
  const TuneCell& best = cells[choice.chosen];
  nlohmann::ordered_json j;
  j["model"] = model;
  j["objective"] = flags.throughput ? "throughput" : "latency";
  j["usable_cpus"] = usable;
  j["max_threads"] = limit;
  j["iterations"] = flags.iterations;
  j["rounds"] = cells.front().round_medians_ms.size();
  j["noise_band_pct"] = choice.noise_band * 100;
  j["cells"] = nlohmann::ordered_json::array();
  for (const TuneCell& cell : cells) {
    j["cells"].push_back({{"intra_op_threads", cell.intra},
                          {"inter_op_threads", cell.inter},
                          {"batch", cell.batch},
                          {"median_ms", cell.median_ms},
                          {"p90_ms", cell.p90_ms},
                          {"throughput_per_s", cell.throughput_per_s},
                          {"latencies_ms", cell.latencies_ms},
                          {"round_medians_ms", cell.round_medians_ms}});
  }
  // "best" is the pick: the fewest threads within the noise of "fastest".
  j["best"] = setting(best);
  j["fastest"] = setting(cells[choice.fastest]);
  j["within_noise"] = nlohmann::ordered_json::array();
  for (size_t i : choice.within_noise) j["within_noise"].push_back(setting(cells[i]));
  j["verdict"] = ChoiceVerdict(cells, choice, flags.throughput);
  j["environment"] = {{"LOOM_NUM_INTRAOP_THREADS", std::to_string(best.intra)},
                      {"LOOM_NUM_INTEROP_THREADS", std::to_string(best.inter)}};
  return j.dump(2) + "\n";
}

}  // namespace

int TuneCommand(const std::vector<std::string>& args) {
  const TuneFlags flags = ParseFlags(args);
  Model model = LoadModel(flags.model.model);
  const int usable = threading::describe().cpu.usable;
  const int limit = std::max(1, std::min(usable, flags.max_threads.value_or(usable)));

  SweepOptions sweep;
  sweep.intra_counts = CandidateThreadCounts(limit);
  sweep.inter_counts = CandidateThreadCounts(limit);
  sweep.feeds_by_batch = FeedsByBatch(flags, model.graph);
  sweep.iterations = flags.iterations;
  sweep.rounds = kMinRounds;
  sweep.max_rounds = flags.max_rounds;
  sweep.throughput = flags.throughput;
  // Check the outputs before minutes of measuring, not after.
  const std::filesystem::path dir(flags.out_dir);
  CreateOutputFolder(flags.out_dir, "tune: --out");
  for (const char* name : {"tune.svg", "tune.json"}) CheckWritable((dir / name).string());
  ProgressBar bar("tune", 1, StderrIsTerminal());
  sweep.progress = [&bar](int64_t done, int64_t total) { bar.Update(done, total); };
  std::fprintf(stderr,
               "tune: %zu thread settings x %zu batch sizes, %d timed runs each over %d rounds, "
               "then more rounds (at most %d in all) until the pick is stable\n",
               sweep.intra_counts.size() * sweep.inter_counts.size(), sweep.feeds_by_batch.size(),
               sweep.iterations, std::min({kMinRounds, sweep.iterations, sweep.max_rounds}),
               sweep.max_rounds);
  const std::vector<TuneCell> cells = RunSweep(model.graph, sweep);
  bar.Finish();
  const TuneChoice choice = ChooseCell(cells, flags.throughput, NoiseBand(cells));
  const TuneCell& best = cells[choice.chosen];
  const TuneCell& fastest = cells[choice.fastest];

  std::printf("%5s %5s %6s %11s %11s %14s %11s\n", "intra", "inter", "batch", "median ms", "p90 ms",
              "items/s", "vs fastest");
  for (const TuneCell& cell : cells) {
    const char* mark = &cell == &best      ? "   <- best (the pick)"
                       : &cell == &fastest ? "   <- fastest"
                                           : "";
    std::printf("%5d %5d %6lld %11.3f %11.3f %14.1f %9.1f %%%s\n", cell.intra, cell.inter,
                static_cast<long long>(cell.batch), cell.median_ms, cell.p90_ms,
                cell.throughput_per_s, RelativeShortfall(cell, fastest, flags.throughput) * 100,
                mark);
  }
  std::printf("noise: \u00b1%.1f %% (from the spread of each cell's medians over %zu rounds)\n",
              choice.noise_band * 100, best.round_medians_ms.size());
  std::printf("%s\n", ChoiceVerdict(cells, choice, flags.throughput).c_str());
  WriteTextFile((dir / "tune.svg").string(),
                RenderHeatmapSvg(MakeHeatmap(cells, choice, sweep.intra_counts, sweep.inter_counts,
                                             model.label, flags.throughput)));
  WriteTextFile((dir / "tune.json").string(),
                ResultJson(flags, model.label, usable, limit, cells, choice));
  std::printf("\nwrote %s and %s\n", (dir / "tune.svg").c_str(), (dir / "tune.json").c_str());
  const std::string summary =
      flags.throughput
          ? Fixed(best.throughput_per_s, 1) + " items/s at batch " + std::to_string(best.batch)
          : Fixed(best.median_ms, 3) + " ms median";
  std::printf("# best %s on this machine: %s\n", flags.throughput ? "throughput" : "latency",
              summary.c_str());
  std::printf("export LOOM_NUM_INTRAOP_THREADS=%d\nexport LOOM_NUM_INTEROP_THREADS=%d\n",
              best.intra, best.inter);
  return 0;
}

}  // namespace loom::cli
