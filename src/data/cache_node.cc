// cache(): the first complete pass's elements, kept in memory and shared by
// every later iterator of the dataset. Runs on the thread that pulls.
#include <mutex>

#include "data/nodes.h"

namespace loom::data::internal {
namespace {

class CacheNode final : public DatasetNode {
 public:
  explicit CacheNode(NodePtr input) : DatasetNode(std::move(input), "cache") {}

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const CacheNode& node, PipelineContext& context) : node_(node) {
        cached_ = node.Cached();
        if (!cached_) input_ = node.MakeInputIterator(context);
      }
      std::optional<Element> GetNext() override {
        if (cached_) {
          if (next_ >= cached_->size()) return std::nullopt;
          // A copy: the consumer may write into what it receives.
          Element copy;
          for (const Tensor& t : (*cached_)[next_++]) copy.push_back(t.clone());
          return copy;
        }
        std::optional<Element> element;
        try {
          element = input_->GetNext();
        } catch (const CancelledError&) {
          throw;
        } catch (...) {
          // A pass with a failed element would cache a dataset without it;
          // later passes recompute instead.
          failed_ = true;
          throw;
        }
        if (!element) {
          if (!failed_ && !finished_) node_.Publish(std::move(written_));
          finished_ = true;
          return std::nullopt;
        }
        if (!failed_) {
          Element copy;
          for (const Tensor& t : *element) copy.push_back(t.clone());
          written_.push_back(std::move(copy));
        }
        return element;
      }

     private:
      const CacheNode& node_;
      std::shared_ptr<const std::vector<Element>> cached_;  // null: writing
      size_t next_ = 0;
      std::unique_ptr<IteratorNode> input_;
      std::vector<Element> written_;
      bool failed_ = false;
      bool finished_ = false;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  std::shared_ptr<const std::vector<Element>> Cached() const {
    std::lock_guard lock(mutex_);
    return cached_;
  }
  // The first complete pass wins; a concurrent one finishing later is
  // dropped (both saw the same elements).
  void Publish(std::vector<Element> elements) const {
    std::lock_guard lock(mutex_);
    if (!cached_) cached_ = std::make_shared<const std::vector<Element>>(std::move(elements));
  }

  mutable std::mutex mutex_;
  mutable std::shared_ptr<const std::vector<Element>> cached_;  // guarded by mutex_
};

}  // namespace

NodePtr MakeCacheNode(NodePtr input) { return std::make_shared<CacheNode>(std::move(input)); }

}  // namespace loom::data::internal
