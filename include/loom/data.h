// loom::data: input pipelines with tf.data's names, run on Loom's governed
// "loom-data-*" pool.
//
//   using loom::data::Dataset;
//   Dataset ds = Dataset::range(1000)
//                    .map(decode, loom::data::kAutotune)
//                    .batch(32)
//                    .prefetch(loom::data::kAutotune);
//   for (const loom::data::Element& batch : ds.iterate()) { ... }
//
// A Dataset is an immutable description (cheap to copy; every method
// returns a new one). Nothing runs until an Iterator is made; each Iterator
// is an independent pass with its own buffers and workers.
//
// Threads: the asynchronous stages (map with num_parallel_calls >= 1 or
// kAutotune, prefetch) run on the data pool, sized by
// loom::config::threading::set_data_pipeline_threads /
// LOOM_NUM_DATA_THREADS and created when the first iterator starts (which
// also starts the runtime and freezes the configuration). Everything else
// runs on the thread calling next(). No stage ever creates a thread.
//
// CPU budget: at most Options::cpu_budget threads compute pipeline work of
// one iterator at the same moment — pool threads and the consumer together,
// from the first element on. A thread that waits for an element does not
// count. AUTOTUNE never chooses a parallelism above the budget or the pool.
//
// Errors: a stage that fails on an element (a map function throwing, a file
// that cannot be read, mismatched shapes in batch) makes next() throw a
// PipelineError naming the stage and the element's index; the next call
// continues with the following element, as in tf.data. Nothing hangs: the
// failure is delivered in the element's place.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/config.h"
#include "loom/errors.h"
#include "loom/tensor.h"

namespace loom::data {

// num_parallel_calls / prefetch buffer size: let Loom choose by measuring.
inline constexpr int kAutotune = -1;

// Dataset::cardinality() of a dataset that never ends, and of one whose
// length only running it would tell (tf.data's values).
inline constexpr int64_t kInfiniteCardinality = -1;
inline constexpr int64_t kUnknownCardinality = -2;

// One element: its components (a single tensor, or several like a tuple).
// Structure beyond a flat list (dicts, nesting, strings) is the caller's:
// the Python binding keeps it beside the dataset.
using Element = std::vector<Tensor>;

// One component as described before running: its dtype and shape, -1 for
// a dimension that may differ between elements (tf.data's None).
struct ComponentSpec {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
};

// How padded_batch treats one component.
struct Padding {
  // nullopt: no padding; every element must have the same shape (batch's
  // rule). Otherwise the padded shape, of the elements' rank: a dimension
  // >= 0 is that size (an element larger than it is an error), -1 the
  // largest in the batch.
  std::optional<std::vector<int64_t>> shape;
  // A scalar of the component's dtype; nullopt pads with zeros.
  std::optional<Tensor> value;
};

// Thrown by Iterator::next for an element that failed. what() reads
// "<stage> failed on element <index>: <cause's message>".
class PipelineError : public Error {
 public:
  PipelineError(std::string stage, int64_t element, std::exception_ptr cause);
  const std::string& stage() const { return stage_; }  // "map#2"
  int64_t element() const { return element_; }         // index of its input
  std::exception_ptr cause() const { return cause_; }  // the original error

 private:
  std::string stage_;
  int64_t element_;
  std::exception_ptr cause_;
};

struct Options {
  // Threads that may compute this pipeline's work at once; 0 = the data
  // pool's size. Negative values are refused.
  int cpu_budget = 0;
  // Threads one op called inside a map/filter function or generator may
  // use (a cap on the intra-op pool); 0 = no cap. 1 by default: the data
  // pool already runs elements side by side.
  int max_intra_op_parallelism = 1;
  // What a map whose call leaves `deterministic` unset does (tf.data's
  // Options.deterministic): true = input order, false = order of completion.
  bool deterministic = true;
  // false: kAutotune stands for a fixed value instead of measuring (tf.data's
  // Options.autotune.enabled): a map's parallelism is min(data pool size,
  // cpu_budget), a prefetch buffer is 1.
  bool autotune = true;
};

class Iterator;
class ElementRange;

namespace internal {
class DatasetNode;
}

class Dataset {
 public:
  // ---- sources ----
  // int64 scalars start, start + step, ... up to (not including) stop.
  static Dataset range(int64_t stop);
  static Dataset range(int64_t start, int64_t stop, int64_t step = 1);
  // Slices each component along its first axis; all must agree on it.
  static Dataset from_tensor_slices(Element components);
  // One element.
  static Dataset from_tensors(Element components);
  // make_generator() is called once per iterator; the returned function
  // yields elements until it returns nullopt.
  using Generator = std::function<std::optional<Element>()>;
  static Dataset from_generator(std::function<Generator()> make_generator);
  // One element per file: its bytes as a 1-D uint8 tensor. Reading happens
  // in the pipeline (on the data pool when a parallel map or prefetch sits
  // downstream), so a missing file fails its element, not this call.
  static Dataset read_files(std::vector<std::string> paths);
  // One element per line of each file in turn (bytes without the line
  // ending, as a 1-D uint8 tensor), like tf.data.TextLineDataset.
  static Dataset read_lines(std::vector<std::string> paths);
  // The files matching a glob pattern, sorted. Throws InvalidArgumentError
  // when nothing matches.
  static std::vector<std::string> list_files(const std::string& pattern);

  // ---- transformations ----
  using MapFn = std::function<Element(Element)>;
  // num_parallel_calls: 0 = run fn on the consuming thread, one element at
  // a time; N >= 1 = up to N elements at once on the data pool; kAutotune =
  // start at 1 and climb while throughput improves. deterministic = false
  // lets finished elements overtake slower earlier ones; nullopt takes
  // Options::deterministic.
  Dataset map(MapFn fn, int num_parallel_calls = 0,
              std::optional<bool> deterministic = std::nullopt) const;
  Dataset filter(std::function<bool(const Element&)> predicate) const;
  // Stacks batch_size consecutive elements along a new first axis; every
  // component must have the same dtype and shape across the batch.
  // `padding`, if set, pads first as padded_batch does (the stage keeps the
  // name batch): the Python binding batches its strings so.
  using PaddingFn = std::function<std::vector<Padding>(const Element& first)>;
  Dataset batch(int64_t batch_size, bool drop_remainder = false, PaddingFn padding = nullptr) const;
  // Reservoir of buffer_size elements; with a seed the order is
  // reproducible (epoch k uses seed + k when reshuffling).
  Dataset shuffle(int64_t buffer_size, std::optional<uint64_t> seed = std::nullopt,
                  bool reshuffle_each_iteration = true) const;
  // Computes up to buffer_size elements ahead on the data pool; kAutotune
  // climbs the buffer from 1 while throughput improves.
  Dataset prefetch(int buffer_size) const;
  Dataset take(int64_t count) const;         // count < 0: everything
  Dataset skip(int64_t count) const;         // count < 0: everything
  Dataset repeat(int64_t count = -1) const;  // count < 0: forever
  // Maps each element to a dataset and takes block_length elements from
  // each of cycle_length of them in turn (sequentially, on the consumer).
  Dataset interleave(std::function<Dataset(const Element&)> fn, int64_t cycle_length,
                     int64_t block_length = 1) const;
  Dataset with_options(Options options) const;

  // ---- structural transformations (sequential, on the pulling thread) ----
  // Elements of every dataset side by side, components concatenated in
  // order; ends when the first of them ends (inputs after it are not
  // pulled for that element). The result has datasets[0]'s options. Throws
  // InvalidArgumentError for an empty list.
  static Dataset zip(const std::vector<Dataset>& datasets);
  // This dataset's elements, then `other`'s. An element of `other` whose
  // component count or dtypes differ from this dataset's first element
  // fails (InvalidArgumentError in the PipelineError).
  Dataset concatenate(const Dataset& other) const;
  // Splits each element along its first axis into that many elements; all
  // components must share the first dimension (and have one).
  Dataset unbatch() const;
  // batch, padding components to a common shape first. `padding` is called
  // once per iterator, with the first element of the first batch, on the
  // thread assembling it, and returns one Padding per component: so it may
  // depend on what only running tells (the Python binding's strings).
  Dataset padded_batch(int64_t batch_size, PaddingFn padding, bool drop_remainder = false) const;
  // Remembers the elements of the first pass that reaches the end (in
  // memory, shared by every iterator of this dataset and of datasets built
  // on it); later passes read them instead of running the stages above.
  // A pass stopped early caches nothing. Thread-safe.
  Dataset cache() const;
  // Windows of up to `size` elements: window k holds input elements
  // k*shift, k*shift + stride, ... (size of them, fewer at the end, where
  // drop_remainder drops the short ones). Each window is one element whose
  // components are stacked as by batch (first axis: the window's length).
  Dataset window(int64_t size, int64_t shift, int64_t stride = 1,
                 bool drop_remainder = false) const;

  // ---- description ----
  // How many elements a full pass yields, worked out without running (the
  // rules of tf.data), or kInfiniteCardinality / kUnknownCardinality.
  int64_t cardinality() const;
  // Each component's dtype and shape. Known without running except after a
  // stage whose output only its function tells (map, interleave, a
  // generator): that stage's first output element is computed once (the
  // stages above it run) and its shapes taken as the spec. nullopt when
  // that stage yields nothing. Throws PipelineError if computing it fails.
  // Thread-safe; the result is remembered per stage.
  std::optional<std::vector<ComponentSpec>> element_spec() const;

  const Options& options() const;

  // A new, independent pass. Starts the runtime and the data pool.
  Iterator make_iterator() const;
  // For range-for: `for (const Element& e : ds.iterate())`.
  ElementRange iterate() const;

  // Internal.
  explicit Dataset(std::shared_ptr<const internal::DatasetNode> node, Options options);
  const std::shared_ptr<const internal::DatasetNode>& node() const { return node_; }

 private:
  std::shared_ptr<const internal::DatasetNode> node_;
  Options options_;
};

class Iterator {
 public:
  Iterator(Iterator&&) noexcept;
  Iterator& operator=(Iterator&&) noexcept;
  // Stops the workers (waiting for elements they are computing) and frees
  // the buffers.
  ~Iterator();

  // The next element, or nullopt at the end. Throws PipelineError for a
  // failed element (the next call continues after it) and CancelledError
  // after close().
  std::optional<Element> next();

  // Stops workers and frees buffers now; next() then throws CancelledError.
  //
  // Thread safety: next() may be called from several threads (one at a
  // time: calls are serialized). close() and closed() may be called from any
  // thread at any time, also while another thread is blocked in next():
  // close() cancels the pipeline, so a next() blocked in another thread
  // returns or throws CancelledError; close() waits for it, then frees the
  // buffers. A second close() does nothing.
  void close();
  // Whether close() (or destruction) has stopped it.
  bool closed() const;

  // The asynchronous stages and what they chose (parallelism, buffers).
  config::threading::PipelineDescription stats() const;

  struct Impl;
  explicit Iterator(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// Range-for support: begin() makes an iterator; elements are moved out.
class ElementRange {
 public:
  explicit ElementRange(Iterator iterator) : iterator_(std::move(iterator)) {}

  class Position {
   public:
    explicit Position(Iterator* iterator) : iterator_(iterator) { advance(); }
    Position() = default;
    Element& operator*() { return *current_; }
    Position& operator++() {
      advance();
      return *this;
    }
    bool operator!=(const Position& other) const {
      return current_.has_value() != other.current_.has_value();
    }

   private:
    void advance() {
      if (iterator_ != nullptr) current_ = iterator_->next();
    }
    Iterator* iterator_ = nullptr;
    std::optional<Element> current_;
  };

  Position begin() { return Position(&iterator_); }
  Position end() { return Position(); }

 private:
  Iterator iterator_;
};

}  // namespace loom::data
