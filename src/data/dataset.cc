// The public Dataset: argument checks, then a new node.
#include <glob.h>

#include "data/nodes.h"
#include "loom/config.h"

namespace loom::data {

using internal::NodePtr;

namespace {

void Require(bool ok, const std::string& message) {
  if (!ok) throw InvalidArgumentError(message);
}

void RequireCallable(bool ok, const char* what) {
  Require(ok, std::string(what) + ": the function is empty");
}

void CheckParallelism(int value, const char* what) {
  Require(value == kAutotune || (value >= 0 && value <= config::threading::kMaxThreads),
          std::string(what) + " must be kAutotune (-1) or from 0 to " +
              std::to_string(config::threading::kMaxThreads) + ", got " + std::to_string(value));
}

}  // namespace

PipelineError::PipelineError(std::string stage, int64_t element, std::exception_ptr cause)
    : Error([&] {
        std::string message = stage + " failed on element " + std::to_string(element) + ": ";
        try {
          std::rethrow_exception(cause);
        } catch (const std::exception& e) {
          message += e.what();
        } catch (...) {
          message += "unknown error";
        }
        return message;
      }()),
      stage_(std::move(stage)),
      element_(element),
      cause_(std::move(cause)) {}

Dataset::Dataset(NodePtr node, Options options) : node_(std::move(node)), options_(options) {}

Dataset Dataset::range(int64_t stop) { return range(0, stop, 1); }

Dataset Dataset::range(int64_t start, int64_t stop, int64_t step) {
  Require(step != 0, "range: step must not be 0");
  return Dataset(internal::MakeRangeNode(start, stop, step), Options());
}

Dataset Dataset::from_tensor_slices(Element components) {
  Require(!components.empty(), "from_tensor_slices: needs at least one tensor");
  const Tensor& first = components.front();
  Require(first.shape().rank() >= 1,
          "from_tensor_slices: component 0 is a scalar; slicing needs "
          "at least one dimension");
  for (size_t c = 1; c < components.size(); ++c) {
    const Shape& shape = components[c].shape();
    Require(shape.rank() >= 1 && shape.dim(0) == first.shape().dim(0),
            "from_tensor_slices: component " + std::to_string(c) + " has shape " +
                shape.to_string() + " but component 0 has " + first.shape().to_string() +
                "; all must have the same first dimension");
  }
  return Dataset(internal::MakeTensorSlicesNode(std::move(components)), Options());
}

Dataset Dataset::from_tensors(Element components) {
  Require(!components.empty(), "from_tensors: needs at least one tensor");
  return Dataset(internal::MakeTensorsNode(std::move(components)), Options());
}

Dataset Dataset::from_generator(std::function<Generator()> make_generator) {
  RequireCallable(static_cast<bool>(make_generator), "from_generator");
  return Dataset(internal::MakeGeneratorNode(std::move(make_generator)), Options());
}

Dataset Dataset::read_files(std::vector<std::string> paths) {
  return Dataset(internal::MakeFilesNode(std::move(paths)), Options());
}

Dataset Dataset::read_lines(std::vector<std::string> paths) {
  return Dataset(internal::MakeLinesNode(std::move(paths)), Options());
}

std::vector<std::string> Dataset::list_files(const std::string& pattern) {
  glob_t matches{};
  const int rc = glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> paths;
  if (rc == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
  Require(rc == 0 || rc == GLOB_NOMATCH, "list_files: cannot read the files matching '" + pattern +
                                             "' (glob error " + std::to_string(rc) + ")");
  Require(!paths.empty(), "list_files: no file matches '" + pattern + "'");
  return paths;  // glob sorts them
}

Dataset Dataset::map(MapFn fn, int num_parallel_calls, std::optional<bool> deterministic) const {
  RequireCallable(static_cast<bool>(fn), "map");
  CheckParallelism(num_parallel_calls, "map: num_parallel_calls");
  if (num_parallel_calls == 0)
    return Dataset(internal::MakeMapNode(node_, std::move(fn)), options_);
  return Dataset(
      internal::MakeParallelMapNode(node_, std::move(fn), num_parallel_calls, deterministic),
      options_);
}

Dataset Dataset::filter(std::function<bool(const Element&)> predicate) const {
  RequireCallable(static_cast<bool>(predicate), "filter");
  return Dataset(internal::MakeFilterNode(node_, std::move(predicate)), options_);
}

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder, PaddingFn padding) const {
  Require(batch_size >= 1,
          "batch: batch_size must be at least 1, got " + std::to_string(batch_size));
  if (padding) {
    return Dataset(internal::MakePaddedBatchNode(node_, batch_size, std::move(padding),
                                                 drop_remainder, "batch"),
                   options_);
  }
  return Dataset(internal::MakeBatchNode(node_, batch_size, drop_remainder), options_);
}

Dataset Dataset::shuffle(int64_t buffer_size, std::optional<uint64_t> seed,
                         bool reshuffle_each_iteration) const {
  Require(buffer_size >= 1,
          "shuffle: buffer_size must be at least 1, got " + std::to_string(buffer_size));
  return Dataset(internal::MakeShuffleNode(node_, buffer_size, seed, reshuffle_each_iteration),
                 options_);
}

Dataset Dataset::prefetch(int buffer_size) const {
  CheckParallelism(buffer_size, "prefetch: buffer_size");
  if (buffer_size == 0) return *this;  // as in tf.data: no prefetching
  return Dataset(internal::MakePrefetchNode(node_, buffer_size), options_);
}

Dataset Dataset::take(int64_t count) const {
  return Dataset(internal::MakeTakeNode(node_, count), options_);
}

Dataset Dataset::skip(int64_t count) const {
  return Dataset(internal::MakeSkipNode(node_, count), options_);
}

Dataset Dataset::repeat(int64_t count) const {
  return Dataset(internal::MakeRepeatNode(node_, count), options_);
}

Dataset Dataset::interleave(std::function<Dataset(const Element&)> fn, int64_t cycle_length,
                            int64_t block_length) const {
  RequireCallable(static_cast<bool>(fn), "interleave");
  Require(
      cycle_length >= 1 && cycle_length <= 1 << 20,
      "interleave: cycle_length must be from 1 to 1048576, got " + std::to_string(cycle_length));
  Require(block_length >= 1,
          "interleave: block_length must be at least 1, got " + std::to_string(block_length));
  return Dataset(internal::MakeInterleaveNode(node_, std::move(fn), cycle_length, block_length),
                 options_);
}

Dataset Dataset::with_options(Options options) const {
  Require(options.cpu_budget >= 0 && options.cpu_budget <= config::threading::kMaxThreads,
          "Options: cpu_budget must be from 0 (the data pool's size) to " +
              std::to_string(config::threading::kMaxThreads) + ", got " +
              std::to_string(options.cpu_budget));
  Require(options.max_intra_op_parallelism >= 0 &&
              options.max_intra_op_parallelism <= config::threading::kMaxThreads,
          "Options: max_intra_op_parallelism must be from 0 (no cap) to " +
              std::to_string(config::threading::kMaxThreads) + ", got " +
              std::to_string(options.max_intra_op_parallelism));
  return Dataset(node_, options);
}

Dataset Dataset::zip(const std::vector<Dataset>& datasets) {
  Require(!datasets.empty(), "zip: needs at least one dataset");
  std::vector<NodePtr> nodes;
  for (const Dataset& ds : datasets) nodes.push_back(ds.node_);
  return Dataset(internal::MakeZipNode(std::move(nodes)), datasets.front().options_);
}

Dataset Dataset::concatenate(const Dataset& other) const {
  return Dataset(internal::MakeConcatenateNode(node_, other.node_), options_);
}

Dataset Dataset::unbatch() const { return Dataset(internal::MakeUnbatchNode(node_), options_); }

Dataset Dataset::padded_batch(int64_t batch_size, PaddingFn padding, bool drop_remainder) const {
  Require(batch_size >= 1,
          "padded_batch: batch_size must be at least 1, got " + std::to_string(batch_size));
  RequireCallable(static_cast<bool>(padding), "padded_batch");
  return Dataset(internal::MakePaddedBatchNode(node_, batch_size, std::move(padding),
                                               drop_remainder, "padded_batch"),
                 options_);
}

Dataset Dataset::cache() const { return Dataset(internal::MakeCacheNode(node_), options_); }

Dataset Dataset::window(int64_t size, int64_t shift, int64_t stride, bool drop_remainder) const {
  Require(size >= 1, "window: size must be at least 1, got " + std::to_string(size));
  Require(shift >= 1, "window: shift must be at least 1, got " + std::to_string(shift));
  Require(stride >= 1, "window: stride must be at least 1, got " + std::to_string(stride));
  return Dataset(internal::MakeWindowNode(node_, size, shift, stride, drop_remainder), options_);
}

int64_t Dataset::cardinality() const { return node_->Cardinality(); }

std::optional<std::vector<ComponentSpec>> Dataset::element_spec() const {
  return node_->ElementSpec(&options_);
}

const Options& Dataset::options() const { return options_; }

ElementRange Dataset::iterate() const { return ElementRange(make_iterator()); }

}  // namespace loom::data
