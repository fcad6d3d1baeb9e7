// One measured pass of the data-pipeline benchmark: a configuration (how the
// map and prefetch are set, whether the model runs), and the runner that
// builds the pipeline, drives it from the calling thread and reads the CPU
// counters around the timed batches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_meter.h"
#include "loom/session.h"
#include "loom/tensor.h"
#include "synthetic_images.h"

namespace loom::bench {

struct RunnerSettings {
  int batch_size = 8;
  int warmup_batches = 4;  // per sample, on a fresh iterator, not timed
  int timed_batches = 40;  // per sample
  uint64_t seed = 2026;    // images and crops
  int augment_passes = 0;  // see synthetic_images.h
};

enum class Workload {
  kPipelineAndModel,  // the pipeline feeds the model on this thread
  kModelOnly,         // the model on batches made in advance
  kPipelineOnly,      // the pipeline, nobody consuming but the loop
};

struct BenchConfig {
  std::string name;  // "fixed 1"
  Workload workload = Workload::kPipelineAndModel;
  int map_parallel_calls = 1;  // or loom::data::kAutotune
  int prefetch = 2;            // buffer, loom::data::kAutotune, or 0: no prefetch stage
  int cpu_budget = 0;          // Options::cpu_budget; 0 = the pool
};

// What one sample measured. Cores = CPU seconds / wall seconds over the
// timed batches.
struct Sample {
  double wall_s = 0;
  double images_per_s = 0;
  double process_cores = 0;      // getrusage, every thread
  double data_thread_cores = 0;  // the loom-data-* threads
  double consumer_cores = 0;     // the thread calling next() and run()
  double pipeline_cores = 0;     // map-function compute, wherever it ran
  double map_ms_per_call = 0;    // median CPU ms of one map call
  int map_parallelism = 0;       // iterator.stats() at the end; 0: no pipeline
  int prefetch_buffer = 0;
  uint64_t checksum = 0;  // of the timed batches' inputs, in order
};

// Owns the encoded images, the batches made in advance and the model session.
// Not thread-safe: one Run at a time, from one thread.
class PipelineRunner {
 public:
  // Encodes the images and creates the session (which starts the runtime:
  // set the threading configuration first).
  explicit PipelineRunner(const RunnerSettings& settings);

  Sample Run(const BenchConfig& config);

  int64_t images_per_sample() const;
  int64_t encoded_row_bytes() const { return encoded_.shape().dim(1); }
  double mean_encoded_bytes() const { return mean_encoded_bytes_; }

 private:
  Tensor NextPremadeBatch(size_t& position) const;

  RunnerSettings settings_;
  Tensor encoded_;  // uint8 [images, L]
  Tensor indices_;  // int64 [images]
  double mean_encoded_bytes_ = 0;
  std::vector<Tensor> premade_batches_;  // the pipeline's batches, for kModelOnly
  std::shared_ptr<CallCpuLog> map_log_;
  std::unique_ptr<Session> session_;
};

}  // namespace loom::bench
