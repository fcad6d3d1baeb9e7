#include "pipeline_runner.h"

#include <bit>
#include <optional>

#include "demo_network.h"
#include "loom/data.h"
#include "loom/errors.h"
#include "platform/thread_identity.h"

namespace loom::bench {
namespace {

// FNV-1a over the bits of each batch's element sum: order-sensitive and
// cheap (one pass over the floats), so every configuration can prove it saw
// the same batches in the same order.
uint64_t MixBatch(uint64_t hash, const Tensor& batch) {
  const float* p = batch.data<float>();
  double sum = 0;
  for (int64_t i = 0; i < batch.num_elements(); ++i) sum += p[i];
  const uint64_t bits = std::bit_cast<uint64_t>(sum);
  for (int byte = 0; byte < 8; ++byte) {
    hash ^= (bits >> (8 * byte)) & 0xFF;
    hash *= 0x100000001B3ull;
  }
  return hash;
}

constexpr uint64_t kFnvOffset = 0xCBF29CE484222325ull;

data::Dataset MakePipeline(const Tensor& encoded, const Tensor& indices,
                           const RunnerSettings& settings, const BenchConfig& config,
                           std::shared_ptr<CallCpuLog> log) {
  const PreprocessOptions options{.crop_seed = settings.seed,
                                  .augment_passes = settings.augment_passes};
  // The map function times itself on its own thread's CPU clock: exactly the
  // pipeline's compute, on a pool thread or on the consumer alike.
  data::Dataset::MapFn decode_and_normalize = [options, log](data::Element e) {
    const int64_t wall_start = WallNs();
    const int64_t cpu_start = ThreadCpuNs();
    Tensor image = DecodeAndNormalize(e[0], e[1].data<int64_t>()[0], options);
    if (log) log->Record(wall_start, WallNs(), ThreadCpuNs() - cpu_start);
    return data::Element{std::move(image)};
  };
  data::Dataset ds = data::Dataset::from_tensor_slices({encoded, indices})
                         .map(decode_and_normalize, config.map_parallel_calls)
                         .batch(settings.batch_size, /*drop_remainder=*/true);
  if (config.prefetch != 0) ds = ds.prefetch(config.prefetch);
  if (config.cpu_budget > 0) {
    data::Options opts = ds.options();
    opts.cpu_budget = config.cpu_budget;
    ds = ds.with_options(opts);
  }
  return ds;
}

}  // namespace

PipelineRunner::PipelineRunner(const RunnerSettings& settings)
    : settings_(settings), map_log_(std::make_shared<CallCpuLog>()) {
  const int64_t images = images_per_sample();
  encoded_ = MakeEncodedImages(images, settings_.seed);
  indices_ = Tensor(DType::kInt64, {images});
  for (int64_t i = 0; i < images; ++i) indices_.data<int64_t>()[i] = i;
  const int64_t row = encoded_row_bytes();
  for (int64_t i = 0; i < images; ++i) {
    const uint8_t* h = encoded_.data<uint8_t>() + i * row;  // payload size: bytes 6..9, LE
    const uint32_t payload = h[6] | (h[7] << 8) | (h[8] << 16) | (uint32_t{h[9]} << 24);
    mean_encoded_bytes_ += static_cast<double>(payload + 10) / static_cast<double>(images);
  }
  session_ = std::make_unique<Session>(cli::DemoNetwork());
  // The same batches the pipeline yields, made once on this thread.
  BenchConfig sequential{.name = "premade", .map_parallel_calls = 0, .prefetch = 0};
  data::Iterator it =
      MakePipeline(encoded_, indices_, settings_, sequential, nullptr).make_iterator();
  while (std::optional<data::Element> batch = it.next()) premade_batches_.push_back((*batch)[0]);
}

int64_t PipelineRunner::images_per_sample() const {
  return int64_t{settings_.batch_size} * (settings_.warmup_batches + settings_.timed_batches);
}

Tensor PipelineRunner::NextPremadeBatch(size_t& position) const {
  return premade_batches_.at(position++);
}

Sample PipelineRunner::Run(const BenchConfig& config) {
  map_log_->Clear();
  const bool model = config.workload != Workload::kPipelineOnly;
  std::optional<data::Iterator> it;
  if (config.workload != Workload::kModelOnly) {
    it.emplace(MakePipeline(encoded_, indices_, settings_, config, map_log_).make_iterator());
  }
  size_t premade_position = 0;
  auto next_batch = [&]() -> Tensor {
    if (!it) return NextPremadeBatch(premade_position);
    std::optional<data::Element> batch = it->next();
    if (!batch) throw RuntimeError("data_pipeline_bench: the pipeline ended early");
    return std::move((*batch)[0]);
  };
  auto consume = [&](const Tensor& batch) {
    if (model) session_->run({{cli::kDemoInputName, batch}});
  };

  for (int i = 0; i < settings_.warmup_batches; ++i) consume(next_batch());

  Sample s;
  s.checksum = kFnvOffset;
  const int64_t wall_start = WallNs();
  const double process_start = platform::ProcessCpuSeconds();
  const double data_start = NamedThreadsCpuSeconds("loom-data-");
  const int64_t consumer_start = ThreadCpuNs();
  for (int i = 0; i < settings_.timed_batches; ++i) {
    const Tensor batch = next_batch();
    s.checksum = MixBatch(s.checksum, batch);
    consume(batch);
  }
  const int64_t consumer_end = ThreadCpuNs();
  const double data_end = NamedThreadsCpuSeconds("loom-data-");
  const double process_end = platform::ProcessCpuSeconds();
  const int64_t wall_end = WallNs();

  if (it) {
    for (const auto& stage : it->stats().stages) {
      if (stage.name.rfind("map", 0) == 0) s.map_parallelism = stage.parallelism;
      if (stage.name.rfind("prefetch", 0) == 0) s.prefetch_buffer = stage.buffer_size;
    }
    it.reset();  // waits for map calls still running, so the log is complete
  }
  s.wall_s = static_cast<double>(wall_end - wall_start) * 1e-9;
  s.images_per_s = static_cast<double>(settings_.timed_batches * settings_.batch_size) / s.wall_s;
  s.process_cores = (process_end - process_start) / s.wall_s;
  s.data_thread_cores = (data_end - data_start) / s.wall_s;
  s.consumer_cores = static_cast<double>(consumer_end - consumer_start) * 1e-9 / s.wall_s;
  s.pipeline_cores = map_log_->CpuSecondsIn(wall_start, wall_end) / s.wall_s;
  s.map_ms_per_call = map_log_->MedianCallCpuMs(wall_start, wall_end);
  return s;
}

}  // namespace loom::bench
