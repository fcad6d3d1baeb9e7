// Factories for every DatasetNode; dataset.cc validates arguments and
// calls these.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/pipeline.h"

namespace loom::data::internal {

using NodePtr = std::shared_ptr<const DatasetNode>;

// sources.cc
NodePtr MakeRangeNode(int64_t start, int64_t stop, int64_t step);
NodePtr MakeTensorSlicesNode(Element components);
NodePtr MakeTensorsNode(Element components);
NodePtr MakeGeneratorNode(std::function<Dataset::Generator()> make_generator);
NodePtr MakeFilesNode(std::vector<std::string> paths);
NodePtr MakeLinesNode(std::vector<std::string> paths);

// transformations.cc
NodePtr MakeMapNode(NodePtr input, Dataset::MapFn fn);
NodePtr MakeFilterNode(NodePtr input, std::function<bool(const Element&)> predicate);
NodePtr MakeBatchNode(NodePtr input, int64_t batch_size, bool drop_remainder);
NodePtr MakeShuffleNode(NodePtr input, int64_t buffer_size, std::optional<uint64_t> seed,
                        bool reshuffle_each_iteration);
NodePtr MakeTakeNode(NodePtr input, int64_t count);
NodePtr MakeSkipNode(NodePtr input, int64_t count);
NodePtr MakeRepeatNode(NodePtr input, int64_t count);
NodePtr MakeInterleaveNode(NodePtr input, std::function<Dataset(const Element&)> fn,
                           int64_t cycle_length, int64_t block_length);

// combine_nodes.cc
NodePtr MakeZipNode(std::vector<NodePtr> inputs);
NodePtr MakeConcatenateNode(NodePtr first, NodePtr second);

// batching_nodes.cc
NodePtr MakeUnbatchNode(NodePtr input);
// kind: the stage's name ("padded_batch", or "batch" for a padding batch).
NodePtr MakePaddedBatchNode(NodePtr input, int64_t batch_size, Dataset::PaddingFn padding,
                            bool drop_remainder, const std::string& kind);
NodePtr MakeWindowNode(NodePtr input, int64_t size, int64_t shift, int64_t stride,
                       bool drop_remainder);

// cache_node.cc
NodePtr MakeCacheNode(NodePtr input);

// async_nodes.cc: map with num_parallel_calls >= 1 or kAutotune, prefetch.
// deterministic: nullopt = Options::deterministic.
NodePtr MakeParallelMapNode(NodePtr input, Dataset::MapFn fn, int num_parallel_calls,
                            std::optional<bool> deterministic);
NodePtr MakePrefetchNode(NodePtr input, int buffer_size);

// batching.cc: stacks elements component by component along a new first
// axis. Throws InvalidArgumentError naming the element and component that
// differ in dtype, shape or component count.
Element StackElements(const std::vector<Element>& elements);
// The same, after padding each component as `padding` says (one entry per
// component). Throws InvalidArgumentError naming the element and component
// whose rank differs or that is larger than a fixed padded size.
Element PadAndStackElements(const std::vector<Element>& elements,
                            const std::vector<Padding>& padding);

// The elements of the next batch, for batch and padded_batch: up to
// batch_size from `input`, fewer at the end (none when drop_remainder).
// Elements gathered before an input error stay here, so the call after the
// error continues the same batch. Not thread-safe: one iterator's state.
class BatchGatherer {
 public:
  BatchGatherer(int64_t batch_size, bool drop_remainder)
      : batch_size_(batch_size), drop_remainder_(drop_remainder) {}
  // nullopt at the end of the input.
  std::optional<std::vector<Element>> Next(IteratorNode& input);

 private:
  const int64_t batch_size_;
  const bool drop_remainder_;
  std::vector<Element> pending_;
  bool input_done_ = false;
};

// A batch's cardinality and spec (batch and padded_batch): the batch
// dimension is known only with drop_remainder, as in tf.data.
int64_t BatchCardinality(int64_t input_cardinality, int64_t batch_size, bool drop_remainder);
Spec BatchSpec(Spec input, int64_t batch_size, bool drop_remainder);

}  // namespace loom::data::internal
