// Stages that regroup elements along the first axis: unbatch, padded_batch
// and window (batch itself is in transformations.cc). They run on the
// thread that pulls from them.
#include <cstring>
#include <deque>

#include "data/nodes.h"

namespace loom::data::internal {
namespace {

// Row `row` of `t` along its first axis.
Tensor Row(const Tensor& t, int64_t row) {
  std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  Tensor out = Tensor::uninitialized(t.dtype(), Shape(std::move(dims)));
  const size_t bytes = out.nbytes();
  if (bytes > 0) {
    std::memcpy(out.raw_data(), static_cast<const std::byte*>(t.raw_data()) + row * bytes, bytes);
  }
  return out;
}

class UnbatchNode final : public DatasetNode {
 public:
  explicit UnbatchNode(NodePtr input) : DatasetNode(std::move(input), "unbatch") {}

  // tf.data's rule: known when every component's first dimension is the
  // same known size (batch with drop_remainder, tensor slices of a matrix).
  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    Spec spec = input()->ElementSpec(nullptr);
    if (!spec || spec->empty()) return kUnknownCardinality;
    int64_t rows = -1;
    for (const ComponentSpec& c : *spec) {
      if (c.shape.empty() || c.shape.front() < 0) return kUnknownCardinality;
      if (rows >= 0 && c.shape.front() != rows) return kUnknownCardinality;
      rows = c.shape.front();
    }
    return n * rows;
  }

  Spec ElementSpec(const Options* options) const override {
    Spec spec = input()->ElementSpec(options);
    if (!spec) return spec;
    for (ComponentSpec& c : *spec) {
      if (!c.shape.empty()) c.shape.erase(c.shape.begin());
    }
    return spec;
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const UnbatchNode& node, PipelineContext& context)
          : node_(node), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        while (next_row_ >= rows_) {
          std::optional<Element> element = input_->GetNext();
          if (!element) return std::nullopt;
          const int64_t index = index_++;
          try {
            rows_ = RowsOf(*element);
          } catch (...) {
            rows_ = 0;
            RethrowAsPipelineError(node_.name(), index, std::current_exception());
          }
          current_ = std::move(*element);
          next_row_ = 0;
        }
        Element out;
        for (const Tensor& t : current_) out.push_back(Row(t, next_row_));
        ++next_row_;
        return out;
      }

     private:
      static int64_t RowsOf(const Element& element) {
        int64_t rows = -1;
        for (size_t c = 0; c < element.size(); ++c) {
          const Shape& shape = element[c].shape();
          if (shape.rank() == 0) {
            throw InvalidArgumentError("unbatch: component " + std::to_string(c) +
                                       " is a scalar; unbatch needs at least one dimension");
          }
          if (rows >= 0 && shape.dim(0) != rows) {
            throw InvalidArgumentError("unbatch: component " + std::to_string(c) + " has " +
                                       std::to_string(shape.dim(0)) + " rows, component 0 has " +
                                       std::to_string(rows) +
                                       " (every component needs the same batch size)");
          }
          rows = shape.dim(0);
        }
        return std::max<int64_t>(rows, 0);
      }

      const UnbatchNode& node_;
      std::unique_ptr<IteratorNode> input_;
      Element current_;
      int64_t rows_ = 0;
      int64_t next_row_ = 0;
      int64_t index_ = 0;
    };
    return std::make_unique<It>(*this, context);
  }
};

class PaddedBatchNode final : public DatasetNode {
 public:
  PaddedBatchNode(NodePtr input, int64_t batch_size, Dataset::PaddingFn padding,
                  bool drop_remainder, const std::string& kind)
      : DatasetNode(std::move(input), kind),
        batch_size_(batch_size),
        padding_(std::move(padding)),
        drop_remainder_(drop_remainder) {}

  int64_t Cardinality() const override {
    return BatchCardinality(input()->Cardinality(), batch_size_, drop_remainder_);
  }

  // Dimensions padded to a fixed size take it; those padded to the largest
  // in the batch are -1.
  Spec ElementSpec(const Options* options) const override {
    Spec spec = input()->ElementSpec(options);
    if (!spec || spec->empty()) return BatchSpec(spec, batch_size_, drop_remainder_);
    Element model;
    for (const ComponentSpec& c : *spec) {
      std::vector<int64_t> dims = c.shape;
      for (int64_t& d : dims) d = std::max<int64_t>(d, 0);
      model.push_back(Tensor::uninitialized(c.dtype, Shape(std::move(dims))));
    }
    const std::vector<Padding> padding = padding_(model);
    for (size_t c = 0; c < spec->size() && c < padding.size(); ++c) {
      if (!padding[c].shape || padding[c].shape->size() != (*spec)[c].shape.size()) continue;
      // A dimension padded to the longest is -1 even where the input's spec
      // has a size: that size may come from a function's first element.
      // (tf.data keeps a size it knows statically.)
      (*spec)[c].shape = *padding[c].shape;
    }
    return BatchSpec(spec, batch_size_, drop_remainder_);
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const PaddedBatchNode& node, PipelineContext& context)
          : node_(node),
            context_(context),
            input_(node.MakeInputIterator(context)),
            gatherer_(node.batch_size_, node.drop_remainder_) {}
      std::optional<Element> GetNext() override {
        std::optional<std::vector<Element>> elements = gatherer_.Next(*input_);
        if (!elements) return std::nullopt;
        const int64_t index = batches_++;
        try {
          if (!padding_) {
            padding_ = context_.CallUser([&] { return node_.padding_((*elements)[0]); });
          }
          return PadAndStackElements(*elements, *padding_);
        } catch (...) {
          RethrowAsPipelineError(node_.name(), index, std::current_exception());
        }
      }

     private:
      const PaddedBatchNode& node_;
      PipelineContext& context_;
      std::unique_ptr<IteratorNode> input_;
      BatchGatherer gatherer_;
      std::optional<std::vector<Padding>> padding_;
      int64_t batches_ = 0;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  int64_t batch_size_;
  Dataset::PaddingFn padding_;
  bool drop_remainder_;
};

class WindowNode final : public DatasetNode {
 public:
  WindowNode(NodePtr input, int64_t size, int64_t shift, int64_t stride, bool drop_remainder)
      : DatasetNode(std::move(input), "window"),
        size_(size),
        shift_(shift),
        stride_(stride),
        drop_remainder_(drop_remainder) {}

  // tf.data's formula (window_dataset_op.cc).
  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    if (drop_remainder_) {
      const int64_t rest = n - ((size_ - 1) * stride_ + 1);
      return rest < 0 ? 0 : rest / shift_ + 1;
    }
    return n / shift_ + (n % shift_ == 0 ? 0 : 1);
  }

  Spec ElementSpec(const Options* options) const override {
    Spec spec = input()->ElementSpec(options);
    if (!spec) return spec;
    for (ComponentSpec& c : *spec) c.shape.insert(c.shape.begin(), -1);
    return spec;
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const WindowNode& node, PipelineContext& context)
          : node_(node), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        if (done_) return std::nullopt;
        const int64_t last = start_ + (node_.size_ - 1) * node_.stride_;
        // buffered_[i] is input element first_buffered_ + i.
        while (!input_done_ && first_buffered_ + static_cast<int64_t>(buffered_.size()) <= last) {
          std::optional<Element> element = input_->GetNext();
          if (!element) {
            input_done_ = true;
            break;
          }
          if (first_buffered_ + static_cast<int64_t>(buffered_.size()) < start_) {
            ++first_buffered_;  // between windows (shift > the window's span)
            continue;
          }
          buffered_.push_back(std::move(*element));
        }
        std::vector<Element> window;
        for (int64_t i = start_; i <= last; i += node_.stride_) {
          const int64_t at = i - first_buffered_;
          if (at >= static_cast<int64_t>(buffered_.size())) break;
          window.push_back(buffered_[static_cast<size_t>(at)]);
        }
        if (window.empty() ||
            (node_.drop_remainder_ && static_cast<int64_t>(window.size()) < node_.size_)) {
          // Every later window starts later, so it is no longer.
          done_ = true;
          buffered_.clear();
          return std::nullopt;
        }
        start_ += node_.shift_;
        while (!buffered_.empty() && first_buffered_ < start_) {
          buffered_.pop_front();
          ++first_buffered_;
        }
        const int64_t index = windows_++;
        try {
          return StackElements(window);
        } catch (...) {
          RethrowAsPipelineError(node_.name(), index, std::current_exception());
        }
      }

     private:
      const WindowNode& node_;
      std::unique_ptr<IteratorNode> input_;
      std::deque<Element> buffered_;
      int64_t first_buffered_ = 0;
      int64_t start_ = 0;  // the next window's first input index
      int64_t windows_ = 0;
      bool input_done_ = false;
      bool done_ = false;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  int64_t size_, shift_, stride_;
  bool drop_remainder_;
};

}  // namespace

NodePtr MakeUnbatchNode(NodePtr input) { return std::make_shared<UnbatchNode>(std::move(input)); }

NodePtr MakePaddedBatchNode(NodePtr input, int64_t batch_size, Dataset::PaddingFn padding,
                            bool drop_remainder, const std::string& kind) {
  return std::make_shared<PaddedBatchNode>(std::move(input), batch_size, std::move(padding),
                                           drop_remainder, kind);
}

NodePtr MakeWindowNode(NodePtr input, int64_t size, int64_t shift, int64_t stride,
                       bool drop_remainder) {
  return std::make_shared<WindowNode>(std::move(input), size, shift, stride, drop_remainder);
}

}  // namespace loom::data::internal
