// The sequential transformations: each runs on the thread that pulls from
// it (the consumer, or a data-pool worker of an asynchronous stage below).
#include <algorithm>
#include <climits>
#include <random>

#include "data/nodes.h"

namespace loom::data::internal {
namespace {

class MapNode final : public DatasetNode {
 public:
  MapNode(NodePtr input, Dataset::MapFn fn)
      : DatasetNode(std::move(input), "map"), fn_(std::move(fn)) {}

  Spec ElementSpec(const Options* options) const override { return SpecOfFirstElement(options); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const MapNode& node, PipelineContext& context)
          : node_(node), context_(context), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        std::optional<Element> element = input_->GetNext();
        if (!element) return std::nullopt;
        const int64_t index = index_++;
        try {
          return context_.CallUser([&] { return node_.fn_(std::move(*element)); });
        } catch (...) {
          RethrowAsPipelineError(node_.name(), index, std::current_exception());
        }
      }

     private:
      const MapNode& node_;
      PipelineContext& context_;
      std::unique_ptr<IteratorNode> input_;
      int64_t index_ = 0;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  Dataset::MapFn fn_;
};

class FilterNode final : public DatasetNode {
 public:
  FilterNode(NodePtr input, std::function<bool(const Element&)> predicate)
      : DatasetNode(std::move(input), "filter"), predicate_(std::move(predicate)) {}

  int64_t Cardinality() const override { return kUnknownCardinality; }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const FilterNode& node, PipelineContext& context)
          : node_(node), context_(context), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        while (true) {
          std::optional<Element> element = input_->GetNext();
          if (!element) return std::nullopt;
          const int64_t index = index_++;
          bool keep = false;
          try {
            keep = context_.CallUser([&] { return node_.predicate_(*element); });
          } catch (...) {
            RethrowAsPipelineError(node_.name(), index, std::current_exception());
          }
          if (keep) return element;
        }
      }

     private:
      const FilterNode& node_;
      PipelineContext& context_;
      std::unique_ptr<IteratorNode> input_;
      int64_t index_ = 0;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  std::function<bool(const Element&)> predicate_;
};

class BatchNode final : public DatasetNode {
 public:
  BatchNode(NodePtr input, int64_t batch_size, bool drop_remainder)
      : DatasetNode(std::move(input), "batch"),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder) {}

  int64_t Cardinality() const override {
    return BatchCardinality(input()->Cardinality(), batch_size_, drop_remainder_);
  }
  Spec ElementSpec(const Options* options) const override {
    return BatchSpec(input()->ElementSpec(options), batch_size_, drop_remainder_);
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const BatchNode& node, PipelineContext& context)
          : node_(node),
            input_(node.MakeInputIterator(context)),
            gatherer_(node.batch_size_, node.drop_remainder_) {}
      std::optional<Element> GetNext() override {
        std::optional<std::vector<Element>> elements = gatherer_.Next(*input_);
        if (!elements) return std::nullopt;
        const int64_t index = batches_++;
        try {
          return StackElements(*elements);
        } catch (...) {
          RethrowAsPipelineError(node_.name(), index, std::current_exception());
        }
      }

     private:
      const BatchNode& node_;
      std::unique_ptr<IteratorNode> input_;
      BatchGatherer gatherer_;
      int64_t batches_ = 0;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  int64_t batch_size_;
  bool drop_remainder_;
};

class ShuffleNode final : public DatasetNode {
 public:
  ShuffleNode(NodePtr input, int64_t buffer_size, std::optional<uint64_t> seed, bool reshuffle)
      : DatasetNode(std::move(input), "shuffle"),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_(reshuffle) {}

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    uint64_t seed = 0;
    if (seed_) {
      seed = *seed_ + (reshuffle_ ? epochs_.fetch_add(1, std::memory_order_relaxed) : 0);
    } else {
      seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    }
    class It final : public IteratorNode {
     public:
      It(const ShuffleNode& node, PipelineContext& context, uint64_t seed)
          : node_(node), input_(node.MakeInputIterator(context)), random_(seed) {}
      std::optional<Element> GetNext() override {
        while (!input_done_ && static_cast<int64_t>(buffer_.size()) < node_.buffer_size_) {
          std::optional<Element> element = input_->GetNext();
          if (!element) {
            input_done_ = true;
            break;
          }
          buffer_.push_back(std::move(*element));
        }
        if (buffer_.empty()) return std::nullopt;
        std::uniform_int_distribution<size_t> pick(0, buffer_.size() - 1);
        const size_t i = pick(random_);
        std::swap(buffer_[i], buffer_.back());
        Element out = std::move(buffer_.back());
        buffer_.pop_back();
        return out;
      }

     private:
      const ShuffleNode& node_;
      std::unique_ptr<IteratorNode> input_;
      std::mt19937_64 random_;
      std::vector<Element> buffer_;
      bool input_done_ = false;
    };
    return std::make_unique<It>(*this, context, seed);
  }

 private:
  int64_t buffer_size_;
  std::optional<uint64_t> seed_;
  bool reshuffle_;
  mutable std::atomic<uint64_t> epochs_{0};
};

class TakeNode final : public DatasetNode {
 public:
  TakeNode(NodePtr input, int64_t count) : DatasetNode(std::move(input), "take"), count_(count) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n == kUnknownCardinality) return n;
    if (count_ < 0) return n;
    return n == kInfiniteCardinality ? count_ : std::min(n, count_);
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const TakeNode& node, PipelineContext& context)
          : left_(node.count_), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        if (left_ == 0) return std::nullopt;
        std::optional<Element> element = input_->GetNext();
        if (!element) {
          left_ = 0;
          return std::nullopt;
        }
        if (left_ > 0) --left_;
        return element;
      }

     private:
      int64_t left_;  // < 0: no limit
      std::unique_ptr<IteratorNode> input_;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  int64_t count_;
};

class SkipNode final : public DatasetNode {
 public:
  SkipNode(NodePtr input, int64_t count) : DatasetNode(std::move(input), "skip"), count_(count) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;  // infinite or unknown
    return count_ < 0 ? 0 : std::max<int64_t>(0, n - count_);
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const SkipNode& node, PipelineContext& context)
          : to_skip_(node.count_), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        while (to_skip_ != 0) {
          std::optional<Element> element = input_->GetNext();
          if (!element) {
            to_skip_ = 0;
            return std::nullopt;
          }
          if (to_skip_ > 0) --to_skip_;
        }
        return input_->GetNext();
      }

     private:
      int64_t to_skip_;  // < 0: everything
      std::unique_ptr<IteratorNode> input_;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  int64_t count_;
};

class RepeatNode final : public DatasetNode {
 public:
  RepeatNode(NodePtr input, int64_t count)
      : DatasetNode(std::move(input), "repeat"), count_(count) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (count_ < 0) return n == 0 ? 0 : kInfiniteCardinality;
    if (count_ == 0) return 0;
    if (n < 0) return n;
    return n == 0 ? 0 : (n > INT64_MAX / count_ ? kInfiniteCardinality : n * count_);
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const RepeatNode& node, PipelineContext& context) : node_(node), context_(context) {}
      std::optional<Element> GetNext() override {
        while (node_.count_ < 0 || epoch_ < node_.count_) {
          if (!input_) {
            input_ = node_.MakeInputIterator(context_);
            produced_this_epoch_ = false;
          }
          std::optional<Element> element = input_->GetNext();
          if (element) {
            produced_this_epoch_ = true;
            return element;
          }
          input_.reset();
          ++epoch_;
          // An empty input repeated forever would spin; it ends instead.
          if (!produced_this_epoch_) return std::nullopt;
        }
        return std::nullopt;
      }

     private:
      const RepeatNode& node_;
      PipelineContext& context_;
      std::unique_ptr<IteratorNode> input_;
      int64_t epoch_ = 0;
      bool produced_this_epoch_ = false;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  int64_t count_;
};

class InterleaveNode final : public DatasetNode {
 public:
  InterleaveNode(NodePtr input, std::function<Dataset(const Element&)> fn, int64_t cycle_length,
                 int64_t block_length)
      : DatasetNode(std::move(input), "interleave"),
        fn_(std::move(fn)),
        cycle_length_(cycle_length),
        block_length_(block_length) {}

  int64_t Cardinality() const override { return kUnknownCardinality; }
  Spec ElementSpec(const Options* options) const override { return SpecOfFirstElement(options); }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const InterleaveNode& node, PipelineContext& context)
          : node_(node),
            context_(context),
            input_(node.MakeInputIterator(context)),
            cycle_nodes_(static_cast<size_t>(node.cycle_length_)),
            cycle_(static_cast<size_t>(node.cycle_length_)) {}
      std::optional<Element> GetNext() override {
        while (true) {
          if (!cycle_[current_] && !input_done_) Open(current_);
          if (!cycle_[current_]) {
            if (input_done_ && std::none_of(cycle_.begin(), cycle_.end(),
                                            [](const auto& it) { return it != nullptr; })) {
              return std::nullopt;
            }
            Advance();
            continue;
          }
          std::optional<Element> element = cycle_[current_]->GetNext();
          if (!element) {
            // As tf.data: the turn passes to the next position; this one is
            // refilled from the input when its turn comes round again.
            cycle_[current_].reset();
            Advance();
            continue;
          }
          if (++block_used_ >= node_.block_length_) Advance();
          return element;
        }
      }

     private:
      void Open(size_t position) {
        std::optional<Element> element = input_->GetNext();
        if (!element) {
          input_done_ = true;
          return;
        }
        const int64_t index = opened_++;
        try {
          Dataset inner = context_.CallUser([&] { return node_.fn_(*element); });
          cycle_nodes_[position] = inner.node();
          cycle_[position] = cycle_nodes_[position]->MakeIterator(context_);
        } catch (...) {
          RethrowAsPipelineError(node_.name(), index, std::current_exception());
        }
      }
      void Advance() {
        current_ = (current_ + 1) % cycle_.size();
        block_used_ = 0;
      }

      const InterleaveNode& node_;
      PipelineContext& context_;
      std::unique_ptr<IteratorNode> input_;
      // The inner datasets' nodes, kept alive while their iterators run
      // (declared first, so destroyed after them).
      std::vector<NodePtr> cycle_nodes_;
      std::vector<std::unique_ptr<IteratorNode>> cycle_;
      size_t current_ = 0;
      int64_t block_used_ = 0;
      int64_t opened_ = 0;
      bool input_done_ = false;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  std::function<Dataset(const Element&)> fn_;
  int64_t cycle_length_;
  int64_t block_length_;
};

}  // namespace

NodePtr MakeMapNode(NodePtr input, Dataset::MapFn fn) {
  return std::make_shared<MapNode>(std::move(input), std::move(fn));
}
NodePtr MakeFilterNode(NodePtr input, std::function<bool(const Element&)> predicate) {
  return std::make_shared<FilterNode>(std::move(input), std::move(predicate));
}
NodePtr MakeBatchNode(NodePtr input, int64_t batch_size, bool drop_remainder) {
  return std::make_shared<BatchNode>(std::move(input), batch_size, drop_remainder);
}
NodePtr MakeShuffleNode(NodePtr input, int64_t buffer_size, std::optional<uint64_t> seed,
                        bool reshuffle_each_iteration) {
  return std::make_shared<ShuffleNode>(std::move(input), buffer_size, seed,
                                       reshuffle_each_iteration);
}
NodePtr MakeTakeNode(NodePtr input, int64_t count) {
  return std::make_shared<TakeNode>(std::move(input), count);
}
NodePtr MakeSkipNode(NodePtr input, int64_t count) {
  return std::make_shared<SkipNode>(std::move(input), count);
}
NodePtr MakeRepeatNode(NodePtr input, int64_t count) {
  return std::make_shared<RepeatNode>(std::move(input), count);
}
NodePtr MakeInterleaveNode(NodePtr input, std::function<Dataset(const Element&)> fn,
                           int64_t cycle_length, int64_t block_length) {
  return std::make_shared<InterleaveNode>(std::move(input), std::move(fn), cycle_length,
                                          block_length);
}

}  // namespace loom::data::internal
