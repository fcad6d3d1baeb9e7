// loom.data benchmark (issue: input pipelines): a map-heavy pipeline
// (decode + normalize of synthetic encoded images) feeding the demo model,
// with the map at fixed 1, fixed max (the data pool's size), AUTOTUNE, and
// AUTOTUNE under Options::cpu_budget = 1; plus the model alone on batches
// made in advance and the pipeline alone (map at 1 and at the pool's size,
// with and without the prefetch), to show which side is the bottleneck. Throughput and CPU use
// (process, loom-data threads, consumer, and the map's own compute) per configuration.
//
//   loom_data_pipeline_bench [--reps N] [--batches N] [--warmup N]
//                            [--augment-passes P] [--data-threads N] [--seed S]
//                            [--json FILE] [--markdown FILE]
//
// All configurations run in one process, interleaved (the order rotated each
// rep), each sample on a fresh iterator; the reports give medians and
// min-max. The model runs with intra 1 / inter 1 so it occupies only the
// consuming thread. Exit status 1 when a budgeted configuration's map
// compute exceeds its budget (+ 0.05 cores) in any sample, or when two
// samples saw different batches; 2 for bad flags.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "bench_report.h"
#include "loom/config.h"
#include "loom/data.h"
#include "loom/errors.h"
#include "pipeline_runner.h"
#include "synthetic_images.h"

namespace loom::bench {
namespace {

// Chosen so that on the 2-core development VM one map thread takes about
// twice the model's time per image (bench/results/data-pipeline-*.md has the
// measured ratio): the pipeline is the bottleneck at parallelism 1.
constexpr int kDefaultAugmentPasses = 80;
// Slack for the budget check: the edges of the timed window are attributed
// in proportion to wall time, which can be off by a fraction of one call.
constexpr double kBudgetTolerance = 0.05;

struct Flags {
  int reps = 5;
  int data_threads = 0;  // 0: automatic
  RunnerSettings runner;
  std::string json_path;
  std::string markdown_path;
  std::string command;
};

bool ParseFlags(int argc, char** argv, Flags& flags) {
  flags.runner.augment_passes = kDefaultAugmentPasses;
  flags.command = argv[0];
  for (int i = 1; i < argc; ++i) flags.command += std::string(" ") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    const char* value = argv[++i];
    if (arg == "--reps") {
      flags.reps = std::max(1, std::atoi(value));
    } else if (arg == "--batches") {
      flags.runner.timed_batches = std::max(1, std::atoi(value));
    } else if (arg == "--warmup") {
      flags.runner.warmup_batches = std::max(0, std::atoi(value));
    } else if (arg == "--augment-passes") {
      flags.runner.augment_passes = std::max(0, std::atoi(value));
    } else if (arg == "--data-threads") {
      flags.data_threads = std::max(0, std::atoi(value));
    } else if (arg == "--seed") {
      flags.runner.seed = std::strtoull(value, nullptr, 10);
    } else if (arg == "--json") {
      flags.json_path = value;
    } else if (arg == "--markdown") {
      flags.markdown_path = value;
    } else {
      return false;
    }
  }
  return true;
}

std::string FirstLineWith(const std::string& path, const std::string& key) {
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t colon = line.find(':');
    return colon == std::string::npos ? line : line.substr(colon + 2);
  }
  return "unknown";
}

std::string LoadAverage() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  file >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

std::string TodayUtc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[16];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d", &utc);
  return buffer;
}

// The codec round trip keeps the image (PSNR at least 30 dB, what JPEG at
// quality 75 gives on such content) and preprocessing is a pure function.
bool SelfCheck(const RunnerSettings& settings) {
  const Tensor image = MakeSyntheticImage(0, settings.seed);
  const std::vector<uint8_t> bytes = EncodeImage(image);
  const double psnr = Psnr(image, DecodeImage(bytes.data(), static_cast<int64_t>(bytes.size())));
  const Tensor encoded = MakeEncodedImages(1, settings.seed);
  const Tensor row = encoded.reshape({encoded.num_elements()});
  const PreprocessOptions options{.crop_seed = settings.seed,
                                  .augment_passes = settings.augment_passes};
  const Tensor a = DecodeAndNormalize(row, 0, options);
  const Tensor b = DecodeAndNormalize(row, 0, options);
  const bool same = std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
  std::printf("codec round trip: %zu bytes, PSNR %.1f dB; preprocessing deterministic: %s\n",
              bytes.size(), psnr, same ? "yes" : "NO");
  return psnr >= 30 && same;
}

std::vector<BenchConfig> Configurations(int pool) {
  using data::kAutotune;
  return {
      {"model only", Workload::kModelOnly, 0, 0, 0},
      {"pipeline only, fixed 1", Workload::kPipelineOnly, 1, 2, 0},
      {"pipeline only, fixed " + std::to_string(pool), Workload::kPipelineOnly, pool, 2, 0},
      // Without the prefetch, whose worker holds a pool thread while it
      // waits for the map: does the map then use the whole pool?
      {"pipeline only, fixed " + std::to_string(pool) + ", no prefetch", Workload::kPipelineOnly,
       pool, 0, 0},
      {"fixed 1", Workload::kPipelineAndModel, 1, 2, 0},
      {"fixed max (" + std::to_string(pool) + ")", Workload::kPipelineAndModel, pool, 2, 0},
      {"AUTOTUNE", Workload::kPipelineAndModel, kAutotune, kAutotune, 0},
      {"AUTOTUNE, cpu_budget 1", Workload::kPipelineAndModel, kAutotune, kAutotune, 1},
  };
}

int Main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) {
    std::fprintf(stderr,
                 "usage: %s [--reps N] [--batches N] [--warmup N] [--augment-passes P]\n"
                 "          [--data-threads N] [--seed S] [--json FILE] [--markdown FILE]\n",
                 argv[0]);
    return 2;
  }
  const int64_t start_ns = WallNs();
  Report report;
  report.command = flags.command;
  report.reps = flags.reps;
  report.settings = flags.runner;
  report.load_before = LoadAverage();
  report.cpu_model = FirstLineWith("/proc/cpuinfo", "model name");

  // Before anything starts the runtime: the model gets the consuming thread
  // only; the data pool stays automatic unless asked.
  config::threading::set_intra_op_parallelism_threads(1);
  config::threading::set_inter_op_parallelism_threads(1);
  if (flags.data_threads > 0) config::threading::set_data_pipeline_threads(flags.data_threads);

  if (!SelfCheck(flags.runner)) {
    std::fprintf(stderr, "codec self-check failed\n");
    return 1;
  }
  PipelineRunner runner(flags.runner);
  report.encoded_row_bytes = runner.encoded_row_bytes();
  report.mean_encoded_bytes = runner.mean_encoded_bytes();

  const int pool = config::threading::get_data_pipeline_threads();
  for (const BenchConfig& config : Configurations(pool)) report.results.push_back({config, {}});
  const size_t n = report.results.size();
  for (int rep = 0; rep < flags.reps; ++rep) {
    for (size_t k = 0; k < n; ++k) {
      ConfigResult& r = report.results[(k + static_cast<size_t>(rep)) % n];
      r.samples.push_back(runner.Run(r.config));
    }
    std::printf("rep %d/%d done\n", rep + 1, flags.reps);
    std::fflush(stdout);
  }

  report.checksums_match = true;
  const uint64_t expected = report.results.front().samples.front().checksum;
  for (const ConfigResult& r : report.results) {
    for (const Sample& s : r.samples) report.checksums_match &= s.checksum == expected;
  }
  bool ok = report.checksums_match;
  for (const ConfigResult& r : report.results) {
    if (r.config.cpu_budget <= 0) continue;
    BudgetCheck check{.config = r.config.name,
                      .budget = r.config.cpu_budget,
                      .tolerance = kBudgetTolerance,
                      .worst_pipeline_cores = SpreadOf(r.samples, &Sample::pipeline_cores).max};
    check.passed = check.worst_pipeline_cores <= check.budget + check.tolerance;
    ok &= check.passed;
    report.budget_checks.push_back(check);
  }
  report.threading = config::threading::describe();
  report.load_after = LoadAverage();
  report.date = TodayUtc();
  report.total_seconds = static_cast<double>(WallNs() - start_ns) * 1e-9;

  PrintTable(report);
  std::printf("total %.1f s, load average before %s, after %s\n", report.total_seconds,
              report.load_before.c_str(), report.load_after.c_str());
  if (!flags.json_path.empty()) std::ofstream(flags.json_path) << ToJson(report);
  if (!flags.markdown_path.empty()) std::ofstream(flags.markdown_path) << ToMarkdown(report);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace loom::bench

int main(int argc, char** argv) {
  try {
    return loom::bench::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "data_pipeline_bench: %s\n", e.what());
    return 1;
  }
}
