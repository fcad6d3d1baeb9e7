// Stages that combine datasets: zip (side by side) and concatenate (one
// after the other). Both run on the thread that pulls from them.
#include <algorithm>

#include "data/nodes.h"

namespace loom::data::internal {
namespace {

class ZipNode final : public DatasetNode {
 public:
  explicit ZipNode(std::vector<NodePtr> inputs)
      : DatasetNode(inputs.front(), "zip"), others_(inputs.begin() + 1, inputs.end()) {}

  // tf.data's rule: unknown if any input is; otherwise the shortest finite
  // one, infinite if all are.
  int64_t Cardinality() const override {
    int64_t result = kInfiniteCardinality;
    for (const DatasetNode* node : Inputs()) {
      const int64_t n = node->Cardinality();
      if (n == kUnknownCardinality) return kUnknownCardinality;
      if (n == kInfiniteCardinality) continue;
      result = result == kInfiniteCardinality ? n : std::min(result, n);
    }
    return result;
  }

  Spec ElementSpec(const Options* options) const override {
    std::vector<ComponentSpec> spec;
    for (const DatasetNode* node : Inputs()) {
      Spec part = node->ElementSpec(options);
      if (!part) return std::nullopt;
      spec.insert(spec.end(), part->begin(), part->end());
    }
    return spec;
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const ZipNode& node, PipelineContext& context) {
        inputs_.push_back(node.MakeInputIterator(context));
        for (const NodePtr& other : node.others_) inputs_.push_back(other->MakeIterator(context));
      }
      std::optional<Element> GetNext() override {
        if (done_) return std::nullopt;
        Element out;
        for (const auto& input : inputs_) {
          std::optional<Element> part = input->GetNext();
          if (!part) {
            // As tf.data: the end of one input ends the zip; what the
            // earlier inputs gave for this element is dropped.
            done_ = true;
            return std::nullopt;
          }
          for (Tensor& t : *part) out.push_back(std::move(t));
        }
        return out;
      }

     private:
      std::vector<std::unique_ptr<IteratorNode>> inputs_;
      bool done_ = false;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  std::vector<const DatasetNode*> Inputs() const {
    std::vector<const DatasetNode*> all{input()};
    for (const NodePtr& other : others_) all.push_back(other.get());
    return all;
  }

  std::vector<NodePtr> others_;
};

class ConcatenateNode final : public DatasetNode {
 public:
  ConcatenateNode(NodePtr first, NodePtr second)
      : DatasetNode(std::move(first), "concatenate"), second_(std::move(second)) {}

  int64_t Cardinality() const override {
    const int64_t a = input()->Cardinality();
    const int64_t b = second_->Cardinality();
    if (a == kInfiniteCardinality || b == kInfiniteCardinality) return kInfiniteCardinality;
    if (a == kUnknownCardinality || b == kUnknownCardinality) return kUnknownCardinality;
    return a + b;
  }

  // The most specific spec both fit: a dimension the two disagree on is -1.
  Spec ElementSpec(const Options* options) const override {
    Spec a = input()->ElementSpec(options);
    Spec b = second_->ElementSpec(options);
    if (!a) return b;
    if (!b) return a;
    if (a->size() != b->size()) return a;  // refused when it runs
    for (size_t c = 0; c < a->size(); ++c) {
      std::vector<int64_t>& dims = (*a)[c].shape;
      const std::vector<int64_t>& other = (*b)[c].shape;
      if (dims.size() != other.size()) continue;  // tf: unknown rank; kept as is
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] != other[d]) dims[d] = -1;
      }
    }
    return a;
  }

  std::unique_ptr<IteratorNode> MakeIterator(PipelineContext& context) const override {
    class It final : public IteratorNode {
     public:
      It(const ConcatenateNode& node, PipelineContext& context)
          : node_(node), context_(context), input_(node.MakeInputIterator(context)) {}
      std::optional<Element> GetNext() override {
        if (!second_started_) {
          std::optional<Element> element = input_->GetNext();
          if (element) {
            if (!first_) first_ = SpecOf(*element);
            return element;
          }
          input_ = node_.second_->MakeIterator(context_);
          second_started_ = true;
        }
        std::optional<Element> element = input_->GetNext();
        if (element && first_) Check(*element);
        return element;
      }

     private:
      // An element of the second dataset must fit the first's components.
      void Check(const Element& element) {
        const int64_t index = second_index_++;
        std::string problem;
        if (element.size() != first_->size()) {
          problem = "has " + std::to_string(element.size()) + " components, the first dataset's " +
                    std::to_string(first_->size());
        } else {
          for (size_t c = 0; c < element.size() && problem.empty(); ++c) {
            if (element[c].dtype() != (*first_)[c].dtype) {
              problem = "component " + std::to_string(c) + " is " +
                        std::string(dtype_name(element[c].dtype())) + ", the first dataset's is " +
                        std::string(dtype_name((*first_)[c].dtype));
            }
          }
        }
        if (problem.empty()) return;
        RethrowAsPipelineError(
            node_.name(), index,
            std::make_exception_ptr(InvalidArgumentError(
                "concatenate: element " + std::to_string(index) + " of the second dataset " +
                problem + " (concatenated datasets must have the same structure and dtypes)")));
      }

      const ConcatenateNode& node_;
      PipelineContext& context_;
      std::unique_ptr<IteratorNode> input_;
      bool second_started_ = false;
      std::optional<std::vector<ComponentSpec>> first_;
      int64_t second_index_ = 0;
    };
    return std::make_unique<It>(*this, context);
  }

 private:
  NodePtr second_;
};

}  // namespace

NodePtr MakeZipNode(std::vector<NodePtr> inputs) {
  return std::make_shared<ZipNode>(std::move(inputs));
}

NodePtr MakeConcatenateNode(NodePtr first, NodePtr second) {
  return std::make_shared<ConcatenateNode>(std::move(first), std::move(second));
}

}  // namespace loom::data::internal
