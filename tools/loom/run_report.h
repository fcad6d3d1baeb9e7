// What `loom run` measures and prints: load and optimize time, latency
// percentiles and histogram, throughput, CPU use, the threads in the process
// by pool, peak memory and a summary of each output — as text for people and
// as JSON (the keys of issue 5, plus a few).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "latency_histogram.h"
#include "loom/config.h"
#include "loom/tensor.h"
#include "platform/thread_identity.h"

namespace loom::cli {

// The q-th percentile (q in [0, 100]) of `values`, interpolating linearly
// between the two nearest ranks (NumPy's default). 0 for no values.
double Percentile(std::vector<double> values, double q);

struct LatencySummary {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};
LatencySummary SummarizeLatencies(const std::vector<double>& latencies_ms);

// Threads by the pool their name says: "loom-intra-*", "loom-inter-*",
// "loom-data-*". `other` is every remaining thread except the main thread
// (tid == `main_tid`): threads Loom does not account for.
struct ThreadCensus {
  int total = 0;  // every thread, the main thread included
  int intra_op = 0, inter_op = 0, data = 0, other = 0;
};
ThreadCensus CountThreads(const std::vector<platform::OsThread>& threads, int main_tid);

// The sum of a tensor's elements as a double (bool counts 1 for true): a
// cheap fingerprint for comparing outputs across runs and tools.
double Checksum(const Tensor& tensor);

struct OutputSummary {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  double checksum = 0;
};

struct RunReport {
  std::string model;                               // the path, or "demo"
  int intra_op_threads = 0, inter_op_threads = 0;  // in force, from the getters
  std::string intra_op_source, inter_op_source;    // "flag --intra", "auto", "env:..."
  std::string isa;
  int64_t batch = 1;
  int iterations = 0, warmup = 0;
  double load_ms = 0;      // reading and parsing the model (the demo: building it)
  double optimize_ms = 0;  // building the session: graph optimization, the execution plan
  LatencySummary latency_ms;
  std::vector<HistogramBucket> histogram;  // of the timed runs (LatencyHistogram)
  double throughput_per_s = 0;             // batch items per second: batch / mean latency
  double cpu_cores_used = 0;               // process CPU time / wall time, timed iterations
  ThreadCensus threads;
  // Every live Loom worker with its pool and owner (describe()'s list).
  std::vector<config::threading::ThreadDescription> loom_threads;
  double peak_rss_mb = 0;
  int64_t peak_tensor_bytes = 0;  // RunStats::peak_bytes, the largest of the timed runs
  std::vector<OutputSummary> outputs;
  std::vector<std::string> saved_files;  // --save-outputs, when given

  // One JSON object (two-space indent), keys in a fixed order.
  std::string ToJson() const;
  // A few aligned lines for a terminal.
  std::string ToText() const;
};

// Peak resident set size of this process so far, in MiB (getrusage).
double PeakRssMb();

}  // namespace loom::cli
