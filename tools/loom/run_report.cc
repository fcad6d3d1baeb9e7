#include "run_report.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

namespace loom::cli {
namespace {

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

template <typename T>
double Sum(const Tensor& tensor) {
  const T* data = tensor.data<T>();
  double sum = 0;
  for (int64_t i = 0; i < tensor.num_elements(); ++i) sum += static_cast<double>(data[i]);
  return sum;
}

// float16 and bfloat16 convert to float only explicitly.
template <typename Half>
double HalfSum(const Tensor& tensor) {
  const Half* data = tensor.data<Half>();
  double sum = 0;
  for (int64_t i = 0; i < tensor.num_elements(); ++i) sum += static_cast<float>(data[i]);
  return sum;
}

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

}  // namespace

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = rank - static_cast<double>(below);
  return values[below] + (values[above] - values[below]) * fraction;
}

LatencySummary SummarizeLatencies(const std::vector<double>& latencies_ms) {
  LatencySummary s;
  if (latencies_ms.empty()) return s;
  s.p50 = Percentile(latencies_ms, 50);
  s.p90 = Percentile(latencies_ms, 90);
  s.p99 = Percentile(latencies_ms, 99);
  s.mean = std::accumulate(latencies_ms.begin(), latencies_ms.end(), 0.0) /
           static_cast<double>(latencies_ms.size());
  return s;
}

ThreadCensus CountThreads(const std::vector<platform::OsThread>& threads, int main_tid) {
  ThreadCensus census;
  for (const platform::OsThread& thread : threads) {
    ++census.total;
    if (StartsWith(thread.name, "loom-intra-")) {
      ++census.intra_op;
    } else if (StartsWith(thread.name, "loom-inter-")) {
      ++census.inter_op;
    } else if (StartsWith(thread.name, "loom-data-")) {
      ++census.data;
    } else if (thread.tid != main_tid) {
      ++census.other;
    }
  }
  return census;
}

double Checksum(const Tensor& tensor) {
  switch (tensor.dtype()) {
    case DType::kFloat32:
      return Sum<float>(tensor);
    case DType::kFloat64:
      return Sum<double>(tensor);
    case DType::kFloat16:
      return HalfSum<Float16>(tensor);
    case DType::kBFloat16:
      return HalfSum<BFloat16>(tensor);
    case DType::kInt8:
      return Sum<int8_t>(tensor);
    case DType::kUInt8:
      return Sum<uint8_t>(tensor);
    case DType::kInt32:
      return Sum<int32_t>(tensor);
    case DType::kInt64:
      return Sum<int64_t>(tensor);
    case DType::kBool:
      return Sum<bool>(tensor);
    case DType::kInt16:
      return Sum<int16_t>(tensor);
    case DType::kUInt16:
      return Sum<uint16_t>(tensor);
    case DType::kUInt32:
      return Sum<uint32_t>(tensor);
    case DType::kUInt64:
      return Sum<uint64_t>(tensor);
    case DType::kString: {
      // Strings have no sum: their total length in bytes stands in.
      double bytes = 0;
      const std::string* strings = tensor.data<std::string>();
      for (int64_t i = 0; i < tensor.num_elements(); ++i) bytes += strings[i].size();
      return bytes;
    }
  }
  return 0;
}

double PeakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

std::string RunReport::ToJson() const {
  nlohmann::ordered_json j;
  j["model"] = model;
  j["intra_op_threads"] = intra_op_threads;
  j["inter_op_threads"] = inter_op_threads;
  j["batch"] = batch;
  j["iterations"] = iterations;
  j["latency_ms"] = {{"p50", latency_ms.p50},
                     {"p90", latency_ms.p90},
                     {"p99", latency_ms.p99},
                     {"mean", latency_ms.mean}};
  j["throughput_per_s"] = throughput_per_s;
  j["cpu_cores_used"] = cpu_cores_used;
  j["threads"] = {{"total", threads.total},
                  {"intra_op", threads.intra_op},
                  {"inter_op", threads.inter_op},
                  {"data", threads.data},
                  {"other", threads.other}};
  j["loom_threads"] = nlohmann::ordered_json::array();
  for (const auto& t : loom_threads) {
    j["loom_threads"].push_back(
        {{"name", t.name}, {"pool", t.pool}, {"owner", t.owner}, {"tid", t.tid}});
  }
  j["peak_rss_mb"] = peak_rss_mb;
  j["outputs"] = nlohmann::ordered_json::array();
  for (const OutputSummary& output : outputs) {
    j["outputs"].push_back({{"name", output.name},
                            {"shape", output.shape},
                            {"checksum", output.checksum},
                            {"dtype", dtype_name(output.dtype)}});
  }
  // Beyond the keys.
  j["warmup"] = warmup;
  j["load_ms"] = load_ms;
  j["optimize_ms"] = optimize_ms;
  j["latency_histogram"] = nlohmann::ordered_json::array();
  for (const HistogramBucket& bucket : histogram) {
    j["latency_histogram"].push_back(
        {{"lo_ms", bucket.lo_ms}, {"hi_ms", bucket.hi_ms}, {"count", bucket.count}});
  }
  j["sources"] = {{"intra_op_threads", intra_op_source}, {"inter_op_threads", inter_op_source}};
  j["isa"] = isa;
  j["peak_tensor_bytes"] = peak_tensor_bytes;
  if (!saved_files.empty()) j["saved_outputs"] = saved_files;
  return j.dump(2);
}

std::string RunReport::ToText() const {
  std::string out;
  auto line = [&out](const char* label, const std::string& text) {
    char head[32];
    std::snprintf(head, sizeof(head), "%-13s", label);
    out += head + text + "\n";
  };
  line("model", model == "demo" ? "demo (built-in network, no file)" : model);
  line("threads", "intra " + std::to_string(intra_op_threads) + " (" + intra_op_source +
                      "), inter " + std::to_string(inter_op_threads) + " (" + inter_op_source +
                      "), kernels " + isa);
  line("setup", "load " + Format("%.3f", load_ms) + " ms (read + parse), optimize " +
                    Format("%.3f", optimize_ms) + " ms (session build)");
  line("runs", "batch " + std::to_string(batch) + ", " + std::to_string(iterations) +
                   " timed after " + std::to_string(warmup) + " warm-up");
  line("latency ms", "p50 " + Format("%.3f", latency_ms.p50) + "   p90 " +
                         Format("%.3f", latency_ms.p90) + "   p99 " +
                         Format("%.3f", latency_ms.p99) + "   mean " +
                         Format("%.3f", latency_ms.mean));
  const std::vector<std::string> bars = HistogramLines(histogram);
  for (size_t i = 0; i < bars.size(); ++i) line(i == 0 ? "histogram" : "", bars[i]);
  line("throughput", Format("%.1f", throughput_per_s) + " items/s");
  line("cpu use", Format("%.2f", cpu_cores_used) + " cores (process CPU time / wall time)");
  line("threads seen", std::to_string(threads.total) + " in the process: main + " +
                           std::to_string(threads.intra_op) + " intra-op, " +
                           std::to_string(threads.inter_op) + " inter-op, " +
                           std::to_string(threads.data) + " data, " +
                           std::to_string(threads.other) + " other");
  line("memory", "peak RSS " + Format("%.1f", peak_rss_mb) + " MiB, peak tensors " +
                     Format("%.2f", static_cast<double>(peak_tensor_bytes) / (1 << 20)) + " MiB");
  out += "outputs (checksum = sum of the elements)\n";
  for (const OutputSummary& output : outputs) {
    char row[512];
    std::snprintf(row, sizeof(row), "  %-24s %-8s %-18s checksum %.6g\n", output.name.c_str(),
                  std::string(dtype_name(output.dtype)).c_str(), ShapeText(output.shape).c_str(),
                  output.checksum);
    out += row;
  }
  for (const std::string& path : saved_files) out += "saved " + path + "\n";
  return out;
}

}  // namespace loom::cli
