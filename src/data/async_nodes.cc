#include <algorithm>

#include "data/async_stage.h"
#include "data/nodes.h"
#include "threading/thread_pool.h"

namespace loom::data::internal {
namespace {

// The most an autotuned prefetch buffer grows to.
constexpr int kMaxAutotunedPrefetch = 16;

class ParallelMapNode final : public DatasetNode {
 public:
  ParallelMapNode(NodePtr input, Dataset::MapFn fn, int num_parallel_calls,
                  std::optional<bool> deterministic)
      : DatasetNode(std::move(input), "map"),
        fn_(std::move(fn)),
        num_parallel_calls_(num_parallel_calls),
        deterministic_(deterministic) {}

  Spec ElementSpec(const Options* options) const override { return SpecOfFirstElement(options); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    AsyncStage::Config config;
    config.name = name();
    config.fn = fn_;
    config.knob = num_parallel_calls_;
    config.role = AsyncStage::Role::kMap;
    config.deterministic = deterministic_.value_or(context.options().deterministic);
    // Never beyond the pool (more would only queue) or the CPU budget.
    config.autotune_max = std::min(context.pool()->num_threads(), context.budget_tokens());
    // Autotuning off: AUTOTUNE stands for the most it could choose (tf.data
    // then uses its pool's size too, capped at 16).
    if (config.knob == kAutotune && !context.options().autotune) config.knob = config.autotune_max;
    return std::make_unique<AsyncStage>(context, MakeInputIterator(context), std::move(config));
  }

 private:
  Dataset::MapFn fn_;
  int num_parallel_calls_;
  std::optional<bool> deterministic_;
};

class PrefetchNode final : public DatasetNode {
 public:
  PrefetchNode(NodePtr input, int buffer_size)
      : DatasetNode(std::move(input), "prefetch"), buffer_size_(buffer_size) {}

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    AsyncStage::Config config;
    config.name = name();
    config.knob = buffer_size_;
    config.role = AsyncStage::Role::kPrefetch;
    config.autotune_max = kMaxAutotunedPrefetch;
    // Autotuning off: one element ahead, the smallest buffer that overlaps.
    if (config.knob == kAutotune && !context.options().autotune) config.knob = 1;
    return std::make_unique<AsyncStage>(context, MakeInputIterator(context), std::move(config));
  }

 private:
  int buffer_size_;
};

}  // namespace

NodePtr MakeParallelMapNode(NodePtr input, Dataset::MapFn fn, int num_parallel_calls,
                            std::optional<bool> deterministic) {
  return std::make_shared<ParallelMapNode>(std::move(input), std::move(fn), num_parallel_calls,
                                           deterministic);
}

NodePtr MakePrefetchNode(NodePtr input, int buffer_size) {
  return std::make_shared<PrefetchNode>(std::move(input), buffer_size);
}

}  // namespace loom::data::internal
