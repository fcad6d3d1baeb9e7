#include "bench_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "loom/data.h"

namespace loom::bench {
namespace {

using json = nlohmann::ordered_json;

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string KnobName(int value) {
  return value == data::kAutotune ? "AUTOTUNE" : std::to_string(value);
}

const char* WorkloadName(Workload w) {
  switch (w) {
    case Workload::kPipelineAndModel:
      return "pipeline+model";
    case Workload::kModelOnly:
      return "model only";
    case Workload::kPipelineOnly:
      return "pipeline only";
  }
  return "?";
}

// The map parallel calls / prefetch buffer each sample ended with, grouped:
// "2/1 x4, 2/2 x1".
std::string Choices(const ConfigResult& r) {
  if (r.config.workload == Workload::kModelOnly) return "-";
  std::map<std::pair<int, int>, int> counts;
  for (const Sample& s : r.samples) ++counts[{s.map_parallelism, s.prefetch_buffer}];
  std::string out;
  for (const auto& [choice, n] : counts) {
    if (!out.empty()) out += ", ";
    out += std::to_string(choice.first) + "/" + std::to_string(choice.second) + " x" +
           std::to_string(n);
  }
  return out;
}

const ConfigResult* Find(const Report& report, Workload workload, int map_calls, int budget) {
  for (const ConfigResult& r : report.results) {
    if (r.config.workload == workload && r.config.cpu_budget == budget &&
        (workload == Workload::kModelOnly || r.config.map_parallel_calls == map_calls)) {
      return &r;
    }
  }
  return nullptr;
}

// Median images/s of "fixed 1" with the model: what the ratios divide by.
double BaselineRate(const Report& report) {
  const ConfigResult* r = Find(report, Workload::kPipelineAndModel, 1, 0);
  return r ? SpreadOf(r->samples, &Sample::images_per_s).median : 0;
}

struct Calibration {
  double map_ms = 0;    // CPU per image, one map thread
  double model_ms = 0;  // wall per image, model alone on this thread
};

Calibration Calibrate(const Report& report) {
  Calibration c;
  if (const ConfigResult* r = Find(report, Workload::kPipelineOnly, 1, 0)) {
    c.map_ms = SpreadOf(r->samples, &Sample::map_ms_per_call).median;
  }
  if (const ConfigResult* r = Find(report, Workload::kModelOnly, 0, 0)) {
    c.model_ms = 1000.0 / SpreadOf(r->samples, &Sample::images_per_s).median;
  }
  return c;
}

std::string MachineLine(const Report& report) {
  const config::threading::CpuDescription& cpu = report.threading.cpu;
  std::ostringstream out;
  out << report.cpu_model << "; " << cpu.logical << " logical CPUs online, " << cpu.affinity
      << " in the affinity mask, " << cpu.physical_cores << " physical core(s), cgroup quota "
      << (cpu.cgroup_quota ? Format("%.2f", *cpu.cgroup_quota) + " CPUs" : std::string("none"))
      << ", usable " << cpu.usable;
  return out.str();
}

std::string ThreadsLine(const Report& report) {
  const auto& t = report.threading;
  auto setting = [](const config::threading::Setting& s) {
    return std::to_string(s.value) + " (" + s.source + ")";
  };
  return "intra " + setting(t.intra_op_parallelism_threads) + ", inter " +
         setting(t.inter_op_parallelism_threads) + ", data " + setting(t.data_pipeline_threads);
}

std::vector<std::vector<std::string>> TableRows(const Report& report) {
  const double baseline = BaselineRate(report);
  std::vector<std::vector<std::string>> rows;
  for (const ConfigResult& r : report.results) {
    const Spread rate = SpreadOf(r.samples, &Sample::images_per_s);
    const Spread pipeline = SpreadOf(r.samples, &Sample::pipeline_cores);
    const bool compare = r.config.workload == Workload::kPipelineAndModel && baseline > 0;
    rows.push_back({r.config.name, Format("%.1f", rate.median),
                    Format("%.1f", rate.min) + "-" + Format("%.1f", rate.max),
                    compare ? Format("%.2fx", rate.median / baseline) : "-",
                    Format("%.2f", SpreadOf(r.samples, &Sample::process_cores).median),
                    Format("%.2f", SpreadOf(r.samples, &Sample::data_thread_cores).median),
                    Format("%.2f", SpreadOf(r.samples, &Sample::consumer_cores).median),
                    Format("%.2f", pipeline.median) + " / " + Format("%.2f", pipeline.max),
                    Format("%.2f", SpreadOf(r.samples, &Sample::map_ms_per_call).median),
                    Choices(r)});
  }
  return rows;
}

const std::vector<std::string> kHeader = {
    "configuration", "images/s",       "min-max",        "vs fixed 1",       "process cores",
    "data cores",    "consumer cores", "pipeline cores", "map ms/img (CPU)", "map/prefetch"};

json SampleJson(const Sample& s) {
  return {{"wall_s", s.wall_s},
          {"images_per_s", s.images_per_s},
          {"process_cores", s.process_cores},
          {"data_thread_cores", s.data_thread_cores},
          {"consumer_cores", s.consumer_cores},
          {"pipeline_cores", s.pipeline_cores},
          {"map_ms_per_call", s.map_ms_per_call},
          {"map_parallelism", s.map_parallelism},
          {"prefetch_buffer", s.prefetch_buffer},
          {"checksum", s.checksum}};
}

}  // namespace

Spread SpreadOf(const std::vector<Sample>& samples, double Sample::*metric) {
  std::vector<double> v;
  for (const Sample& s : samples) v.push_back(s.*metric);
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {median, v.front(), v.back()};
}

void PrintTable(const Report& report) {
  std::printf("\n%-36s %9s %15s %10s %8s %8s %9s %13s %9s  %s\n", "configuration", "images/s",
              "min-max", "vs fixed 1", "process", "data", "consumer", "pipeline", "map ms",
              "map/prefetch");
  std::printf("%-36s %9s %15s %10s %8s %8s %9s %13s %9s\n", "", "(median)", "", "", "cores",
              "cores", "cores", "med / max", "CPU/img");
  for (const auto& row : TableRows(report)) {
    std::printf("%-36s %9s %15s %10s %8s %8s %9s %13s %9s  %s\n", row[0].c_str(), row[1].c_str(),
                row[2].c_str(), row[3].c_str(), row[4].c_str(), row[5].c_str(), row[6].c_str(),
                row[7].c_str(), row[8].c_str(), row[9].c_str());
  }
  const Calibration c = Calibrate(report);
  std::printf("\nmap CPU per image on one thread %.3f ms, model per image %.3f ms: ratio %.2f\n",
              c.map_ms, c.model_ms, c.model_ms > 0 ? c.map_ms / c.model_ms : 0.0);
  std::printf("batches identical in every sample: %s\n", report.checksums_match ? "yes" : "NO");
  for (const BudgetCheck& b : report.budget_checks) {
    std::printf("cpu_budget check (%s): pipeline cores max %.3f <= %d + %.2f: %s\n",
                b.config.c_str(), b.worst_pipeline_cores, b.budget, b.tolerance,
                b.passed ? "PASS" : "FAIL");
  }
}

std::string ToMarkdown(const Report& report) {
  const RunnerSettings& st = report.settings;
  const Calibration c = Calibrate(report);
  std::ostringstream md;
  md << "# loom.data pipeline feeding the demo model - " << report.date << "\n\n"
     << "Generated by `loom_data_pipeline_bench` (bench/data/, bench/README.md). Command ("
     << Format("%.0f", report.total_seconds) << " s):\n\n```sh\n"
     << report.command << "\n```\n\n"
     << "Machine: " << MachineLine(report) << ". Threads: " << ThreadsLine(report)
     << ". Load average (1/5/15 min) before the run: " << report.load_before
     << "; after: " << report.load_after << ".\n\n"
     << "Pipeline: `from_tensor_slices` of "
     << st.batch_size * (st.warmup_batches + st.timed_batches)
     << " encoded 72x72x3 images (JPEG-like: 8x8 DCT, quantization, DC delta + zero-run coding; "
     << Format("%.0f", report.mean_encoded_bytes) << " bytes on average, rows padded to "
     << report.encoded_row_bytes << ") -> `map(decode_and_normalize, X)` (decode with the "
     << "reference inverse DCT, YCbCr -> RGB, random 64x64 crop seeded by the element index, "
     << st.augment_passes << " 3x3 Gaussian blur passes, mean/std normalization, CHW) -> "
     << "`batch(" << st.batch_size << ", drop_remainder=true)` -> `prefetch(Y)` -> the demo "
     << "network (`Session::run`, intra 1 / inter 1) on the consuming thread.\n\n"
     << "Each sample: a fresh iterator, " << st.warmup_batches << " warm-up batches, then "
     << st.timed_batches << " timed batches (" << st.timed_batches * st.batch_size
     << " images). All configurations ran in one process, interleaved, the order rotated "
     << "each rep; medians of " << report.reps << " reps, min-max beside them. Raw samples: "
     << "the JSON beside this file.\n\n"
     << "Calibration: the map costs " << Format("%.3f", c.map_ms)
     << " ms of CPU per image on one thread (pipeline only, fixed 1); the model "
     << Format("%.3f", c.model_ms) << " ms per image at batch " << st.batch_size
     << " (model only): map / model = "
     << Format("%.2f", c.model_ms > 0 ? c.map_ms / c.model_ms : 0.0) << ".\n\n";

  md << "| " << kHeader[0];
  for (size_t i = 1; i < kHeader.size(); ++i) md << " | " << kHeader[i];
  md << " |\n|---";
  for (size_t i = 1; i < kHeader.size(); ++i) md << "|---:";
  md << "|\n";
  for (const auto& row : TableRows(report)) {
    md << "| " << row[0];
    for (size_t i = 1; i < row.size(); ++i) md << " | " << row[i];
    md << " |\n";
  }
  md << "\nColumns: images/s over the timed batches; \"vs fixed 1\" = median / median of "
        "\"fixed 1\" from the same run. Cores = CPU seconds / wall seconds: process "
        "(getrusage, every thread), data (utime + stime of the `loom-data-*` threads, "
        "/proc/self/task/<tid>/stat, 10 ms ticks), consumer (the thread running `next()` and "
        "the model, CLOCK_THREAD_CPUTIME_ID), pipeline (the map calls' own "
        "CLOCK_THREAD_CPUTIME_ID, summed wherever they ran; median / max over reps). "
        "map/prefetch = the map's parallelism and the prefetch buffer from `iterator.stats()` "
        "at the end of each sample, with how many samples ended there.\n\n";
  md << "Batches identical in every sample of every configuration (order-sensitive checksum): "
     << (report.checksums_match ? "yes" : "**NO**") << ".\n\n";
  for (const BudgetCheck& b : report.budget_checks) {
    md << "CPU budget check, \"" << b.config << "\": pipeline cores at most "
       << Format("%.3f", b.worst_pipeline_cores) << " over all reps, limit " << b.budget << " + "
       << Format("%.2f", b.tolerance) << ": **" << (b.passed ? "PASS" : "FAIL") << "**.\n";
  }
  return md.str();
}

std::string ToJson(const Report& report) {
  const double baseline = BaselineRate(report);
  const Calibration c = Calibrate(report);
  json out;
  out["command"] = report.command;
  out["date"] = report.date;
  out["total_seconds"] = report.total_seconds;
  out["machine"] = {{"cpu_model", report.cpu_model},
                    {"threading", json::parse(report.threading.to_json())},
                    {"load_average_before", report.load_before},
                    {"load_average_after", report.load_after}};
  const RunnerSettings& st = report.settings;
  out["settings"] = {{"reps", report.reps},
                     {"batch_size", st.batch_size},
                     {"warmup_batches", st.warmup_batches},
                     {"timed_batches", st.timed_batches},
                     {"seed", st.seed},
                     {"augment_passes", st.augment_passes},
                     {"encoded_row_bytes", report.encoded_row_bytes},
                     {"mean_encoded_bytes", report.mean_encoded_bytes}};
  out["calibration"] = {{"map_cpu_ms_per_image_one_thread", c.map_ms},
                        {"model_ms_per_image", c.model_ms},
                        {"map_over_model", c.model_ms > 0 ? c.map_ms / c.model_ms : 0.0}};
  json configs = json::array();
  for (const ConfigResult& r : report.results) {
    json entry = {{"name", r.config.name},
                  {"workload", WorkloadName(r.config.workload)},
                  {"map_parallel_calls", KnobName(r.config.map_parallel_calls)},
                  {"prefetch", r.config.prefetch == 0 ? "none" : KnobName(r.config.prefetch)},
                  {"cpu_budget", r.config.cpu_budget}};
    json summary;
    for (const auto& [name, metric] : std::vector<std::pair<const char*, double Sample::*>>{
             {"images_per_s", &Sample::images_per_s},
             {"process_cores", &Sample::process_cores},
             {"data_thread_cores", &Sample::data_thread_cores},
             {"consumer_cores", &Sample::consumer_cores},
             {"pipeline_cores", &Sample::pipeline_cores},
             {"map_ms_per_call", &Sample::map_ms_per_call}}) {
      const Spread s = SpreadOf(r.samples, metric);
      summary[name] = {{"median", s.median}, {"min", s.min}, {"max", s.max}};
    }
    entry["summary"] = summary;
    if (r.config.workload == Workload::kPipelineAndModel && baseline > 0) {
      entry["images_per_s_vs_fixed_1"] = summary["images_per_s"]["median"].get<double>() / baseline;
    }
    json samples = json::array();
    for (const Sample& s : r.samples) samples.push_back(SampleJson(s));
    entry["samples"] = samples;
    configs.push_back(entry);
  }
  out["configurations"] = configs;
  json checks = json::array();
  for (const BudgetCheck& b : report.budget_checks) {
    checks.push_back({{"config", b.config},
                      {"cpu_budget", b.budget},
                      {"tolerance", b.tolerance},
                      {"worst_pipeline_cores", b.worst_pipeline_cores},
                      {"passed", b.passed}});
  }
  out["budget_checks"] = checks;
  out["checksums_match"] = report.checksums_match;
  return out.dump(1) + "\n";
}

}  // namespace loom::bench
