// The public Iterator: one pass over a pipeline, its context, its entry in
// the live-pipeline registry, and an orderly teardown.
#include <algorithm>
#include <mutex>

#include "data/iterator_on_pool.h"
#include "data/nodes.h"
#include "threading/pipeline_registry.h"
#include "threading/runtime.h"
#include "threading/thread_pool.h"

namespace loom::data {

struct Iterator::Impl {
  Impl(internal::NodePtr root_node, const Options& options, threading::ThreadPool* pool)
      : node(std::move(root_node)), context(pool, ResolveOptions(options, *pool)) {
    root = node->MakeIterator(context);
    registry_id = threading::RegisterPipeline([this] { return Stats(); });
  }

  ~Impl() { Close(); }

  static Options ResolveOptions(Options options, const threading::ThreadPool& pool) {
    if (options.cpu_budget == 0) options.cpu_budget = std::max(pool.num_threads(), 1);
    return options;
  }

  config::threading::PipelineDescription Stats() const {
    config::threading::PipelineDescription d;
    d.cpu_budget = context.options().cpu_budget;
    d.max_intra_op_parallelism = context.options().max_intra_op_parallelism;
    d.stages = context.DescribeStages();
    return d;
  }

  // Safe while another thread is inside next(): that call ends with
  // CancelledError before the stages are torn down.
  void Close() {
    {
      std::lock_guard lock(close_mutex);
      if (closed) return;
      closed = true;
    }
    threading::UnregisterPipeline(registry_id);
    // Cancel first: a worker waiting inside an upstream stage must wake up
    // before the stage below it waits for that worker.
    context.Cancel();
    std::lock_guard next_lock(next_mutex);
    root.reset();
  }

  internal::NodePtr node;  // keeps every node alive while iterators use them
  internal::PipelineContext context;
  std::unique_ptr<internal::IteratorNode> root;
  int64_t registry_id = 0;
  std::mutex next_mutex;  // next() is called by one thread at a time
  mutable std::mutex close_mutex;
  bool closed = false;
};

Iterator Dataset::make_iterator() const {
  // Starts the runtime (freezing the configuration) and the data pool.
  return Iterator(
      std::make_unique<Iterator::Impl>(node_, options_, threading::GlobalRuntime().data_pool()));
}

namespace internal {

Iterator MakeIteratorOnPool(const Dataset& dataset, threading::ThreadPool* pool) {
  return Iterator(std::make_unique<Iterator::Impl>(dataset.node(), dataset.options(), pool));
}

}  // namespace internal

Iterator::Iterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Iterator::Iterator(Iterator&&) noexcept = default;
Iterator& Iterator::operator=(Iterator&&) noexcept = default;
Iterator::~Iterator() = default;

std::optional<Element> Iterator::next() {
  if (!impl_) throw RuntimeError("loom.data: next() on a moved-from iterator");
  std::lock_guard lock(impl_->next_mutex);
  {
    std::lock_guard close_lock(impl_->close_mutex);
    if (impl_->closed) throw CancelledError("loom.data: the iterator was closed");
  }
  return impl_->root->GetNext();
}

void Iterator::close() {
  if (impl_) impl_->Close();
}

bool Iterator::closed() const {
  if (!impl_) return true;
  std::lock_guard lock(impl_->close_mutex);
  return impl_->closed;
}

config::threading::PipelineDescription Iterator::stats() const {
  if (!impl_) return {};
  config::threading::PipelineDescription d = impl_->Stats();
  d.id = impl_->registry_id;
  return d;
}

}  // namespace loom::data
