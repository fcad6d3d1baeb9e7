// The internal shape of a pipeline: DatasetNode (the immutable description
// a Dataset holds) makes an IteratorNode (one pass's state) per iterator,
// all sharing one PipelineContext.
//
// Overview of src/data:
//   dataset.cc         the public Dataset methods: build nodes
//   sources.cc         range, tensor slices, generators, files
//   transformations.cc sequential map, filter, batch, shuffle, take, skip,
//                      repeat, interleave (they run on the consuming thread)
//   combine_nodes.cc   zip, concatenate
//   batching_nodes.cc  unbatch, padded_batch, window (batching.cc stacks)
//   cache_node.cc      cache
// Every node also describes its output without running: Cardinality()
// and Spec() (tf.data's rules; element_spec_test.cc).
//   async_stage.*      parallel map and prefetch on the data pool
//   autotuner.*        the hill climber behind kAutotune
//   cpu_budget.*       Options::cpu_budget as tokens
//   iterator.cc        the public Iterator: context, registry, teardown
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "data/cpu_budget.h"
#include "loom/config.h"
#include "loom/data.h"
#include "threading/parallel_for.h"

namespace loom::threading {
class ThreadPool;
}

namespace loom::data::internal {

using config::threading::PipelineStageDescription;

// A stage that runs work on the pool, so it can be described and woken.
class AsyncStageBase {
 public:
  virtual ~AsyncStageBase() = default;
  virtual PipelineStageDescription Describe() const = 0;
  // Wakes every thread waiting inside this stage (cancellation).
  virtual void WakeAll() = 0;
  // Schedules pool tasks for the work the stage has room for. Called when a
  // token of the pipeline's budget came back: a stage whose task found none
  // free had exited and would otherwise wait for the consumer's next call.
  virtual void TopUp() = 0;
};

// State shared by every stage of one iterator.
class PipelineContext {
 public:
  PipelineContext(threading::ThreadPool* pool, const Options& options);

  threading::ThreadPool* pool() const { return pool_; }
  const Options& options() const { return options_; }
  CpuBudget& budget() { return budget_; }
  int budget_tokens() const { return budget_.tokens(); }

  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // Makes every wait in the pipeline end with CancelledError.
  void Cancel();
  // Throws CancelledError if cancelled.
  void CheckCancelled() const;

  void AddStage(AsyncStageBase* stage);
  void RemoveStage(AsyncStageBase* stage);
  // TopUp() on every stage (lock order: the stage list, then a stage).
  void TopUpStages();
  std::vector<PipelineStageDescription> DescribeStages() const;

  // Calls a user function (map, filter, generator...) under the pipeline's
  // max_intra_op_parallelism.
  template <typename Fn>
  decltype(auto) CallUser(Fn&& fn) const {
    threading::ScopedParallelismLimit limit(options_.max_intra_op_parallelism);
    return fn();
  }

 private:
  threading::ThreadPool* pool_;
  Options options_;
  CpuBudget budget_;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex stages_mutex_;
  std::vector<AsyncStageBase*> stages_;  // source first
};

class IteratorNode {
 public:
  virtual ~IteratorNode() = default;
  // The next element, nullopt at the end. Throws PipelineError for a failed
  // element and CancelledError when the pipeline is cancelled.
  virtual std::optional<Element> GetNext() = 0;
};

using Spec = std::optional<std::vector<ComponentSpec>>;

class DatasetNode : public std::enable_shared_from_this<DatasetNode> {
 public:
  // `input` is null for sources; `kind` names the stage in errors and stats.
  DatasetNode(std::shared_ptr<const DatasetNode> input, std::string kind);
  virtual ~DatasetNode() = default;

  virtual std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const = 0;

  // Elements of a full pass, kInfiniteCardinality or kUnknownCardinality.
  // Default: the input's (a stage that yields one element per input).
  virtual int64_t Cardinality() const;
  // The components' dtypes and shapes (Dataset::element_spec). Default: the
  // input's. `options` are the pipeline's, for a stage that must run to
  // tell; null = run nothing (such a stage's spec is then nullopt).
  virtual Spec ElementSpec(const Options* options) const;

  // "map#2": kind and distance from the source.
  const std::string& name() const { return name_; }
  const DatasetNode* input() const { return input_.get(); }

 protected:
  std::unique_ptr<IteratorNode> MakeInputIterator(PipelineContext& context) const {
    return input_->MakeIterator(context);
  }
  // The spec of a stage only running tells: its first element's, computed
  // by a private iterator over the pipeline ending here, once (later calls
  // wait for the first and share its answer). Thread-safe.
  // A null `options` returns what an earlier call found, or nullopt.
  Spec SpecOfFirstElement(const Options* options) const;

 private:
  std::shared_ptr<const DatasetNode> input_;
  std::string name_;
  mutable std::mutex first_element_mutex_;
  mutable std::optional<Spec> first_element_spec_;  // guarded by first_element_mutex_
};

// The spec of one element as it is.
std::vector<ComponentSpec> SpecOf(const Element& element);

// Wraps a failure of `stage` on `element` unless it already is a
// PipelineError (an upstream stage's, which keeps its own name and index)
// or a cancellation.
[[noreturn]] void RethrowAsPipelineError(const std::string& stage, int64_t element,
                                         std::exception_ptr error);

}  // namespace loom::data::internal
