// `loom run [MODEL.onnx] [--intra N] [--inter N] [--batch B] [--iterations N]
// [--warmup N] [--input NAME=FILE.npy]... [--save-outputs DIR] [--json]
// [--no-blocked-layout]`:
// the project's main job. Runs a model (or the built-in demo network) on the
// global runtime and reports latency, throughput, CPU use, the threads in
// the process and the outputs.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "kernels/isa.h"
#include "kernels/process_isa.h"
#include "loom/config.h"
#include "loom/runtime.h"
#include "loom/session.h"
#include "model_source.h"
#include "output_files.h"
#include "platform/thread_identity.h"
#include "progress_bar.h"
#include "run_report.h"

namespace loom::cli {
namespace {

namespace threading = config::threading;
using Clock = std::chrono::steady_clock;

constexpr int kDefaultWarmup = 3;
constexpr int kDefaultIterations = 20;
// Without --iterations, a slow model runs fewer timed iterations (at least
// kMinAutoIterations) so the default run stays near this long.
constexpr double kAutoBudgetSeconds = 10.0;
constexpr int kMinAutoIterations = 5;
// Runs expected to take longer than this get a progress bar (on a terminal).
constexpr double kProgressBarAfterSeconds = 1.0;

struct RunFlags {
  ModelFlags model;
  std::optional<int> iterations;
  int warmup = kDefaultWarmup;
  std::optional<std::string> save_dir;
  bool json = false;
};

RunFlags ParseFlags(const std::vector<std::string>& args) {
  RunFlags out;
  FlagReader flags("run", args);
  while (flags.Next()) {
    if (ParseModelFlag(flags, out.model)) continue;
    if (flags.Is("--iterations")) {
      out.iterations = static_cast<int>(flags.IntValue(1, 1'000'000));
    } else if (flags.Is("--warmup")) {
      out.warmup = static_cast<int>(flags.IntValue(0, 1'000'000));
    } else if (flags.Is("--save-outputs")) {
      out.save_dir = flags.StringValue();
    } else if (flags.Is("--json")) {
      out.json = true;
    } else {
      flags.Unknown();
    }
  }
  return out;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  const RunFlags flags = ParseFlags(args);
  // A folder that cannot be written fails now, not after the runs.
  if (flags.save_dir) CreateOutputFolder(*flags.save_dir, "--save-outputs");
  ApplyThreadFlags(flags.model);
  const Clock::time_point load_start = Clock::now();
  Model model = LoadModel(flags.model.model);
  const double load_s = Seconds(Clock::now() - load_start);
  const Feeds feeds =
      BuildFeeds(model.graph, flags.model.batch, ReadInputFiles(flags.model.inputs));
  // Started first so that creating the pools' threads is not counted as
  // optimizing.
  start_runtime();
  const Clock::time_point optimize_start = Clock::now();
  const Session session(std::move(model.graph), SessionOptionsFor(flags.model));
  const double optimize_s = Seconds(Clock::now() - optimize_start);

  std::vector<Tensor> outputs;
  const Clock::time_point warmup_start = Clock::now();
  for (int i = 0; i < flags.warmup; ++i) outputs = session.run(feeds.tensors);
  const double warmup_s = Seconds(Clock::now() - warmup_start);
  const double per_run_s = flags.warmup > 0 ? warmup_s / flags.warmup : 0;

  int iterations = flags.iterations.value_or(kDefaultIterations);
  if (!flags.iterations && per_run_s * iterations > kAutoBudgetSeconds) {
    iterations = std::max(kMinAutoIterations, static_cast<int>(kAutoBudgetSeconds / per_run_s));
  }
  ProgressBar bar("run", iterations,
                  StderrIsTerminal() && per_run_s * iterations > kProgressBarAfterSeconds);

  std::vector<double> latencies_ms;
  int64_t peak_bytes = 0;
  const double cpu_before = platform::ProcessCpuSeconds();
  const Clock::time_point timed_start = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    RunStats stats;
    const Clock::time_point start = Clock::now();
    outputs = session.run(feeds.tensors, {}, {}, &stats);
    latencies_ms.push_back(Seconds(Clock::now() - start) * 1e3);
    peak_bytes = std::max(peak_bytes, stats.peak_bytes);
    bar.Update(i + 1);
  }
  const double wall_s = Seconds(Clock::now() - timed_start);
  const double cpu_s = platform::ProcessCpuSeconds() - cpu_before;
  bar.Finish();

  const threading::Description described = threading::describe();
  RunReport report;
  report.model = model.label;
  report.intra_op_threads = threading::get_intra_op_parallelism_threads();
  report.inter_op_threads = threading::get_inter_op_parallelism_threads();
  report.intra_op_source = described.intra_op_parallelism_threads.source;
  report.inter_op_source = described.inter_op_parallelism_threads.source;
  report.isa = std::string(kernels::IsaName(kernels::ProcessIsa()));
  report.batch = feeds.batch;
  report.iterations = iterations;
  report.warmup = flags.warmup;
  report.load_ms = load_s * 1e3;
  report.optimize_ms = optimize_s * 1e3;
  report.latency_ms = SummarizeLatencies(latencies_ms);
  report.histogram = LatencyHistogram(latencies_ms);
  report.throughput_per_s = report.latency_ms.mean > 0
                                ? static_cast<double>(feeds.batch) * 1e3 / report.latency_ms.mean
                                : 0;
  report.cpu_cores_used = wall_s > 0 ? cpu_s / wall_s : 0;
  report.threads = CountThreads(platform::ListProcessThreads(), static_cast<int>(getpid()));
  report.loom_threads = described.threads;
  report.peak_rss_mb = PeakRssMb();
  report.peak_tensor_bytes = peak_bytes;
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs.size() && i < session.outputs().size(); ++i) {
    names.push_back(session.outputs()[i].name);
    report.outputs.push_back(
        {names.back(), outputs[i].dtype(), outputs[i].shape().dims(), Checksum(outputs[i])});
  }
  if (flags.save_dir) report.saved_files = SaveOutputs(*flags.save_dir, names, outputs);
  std::fputs((flags.json ? report.ToJson() + "\n" : report.ToText()).c_str(), stdout);
  return 0;
}

}  // namespace loom::cli
