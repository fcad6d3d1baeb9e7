#include "data/pipeline.h"

#include <algorithm>

#include "threading/thread_pool.h"

namespace loom::data::internal {

PipelineContext::PipelineContext(threading::ThreadPool* pool, const Options& options)
    : pool_(pool), options_(options), budget_(options.cpu_budget, pool->cpu_budget()) {}

void PipelineContext::Cancel() {
  cancelled_.store(true, std::memory_order_release);
  budget_.Cancel();
  std::lock_guard lock(stages_mutex_);
  for (AsyncStageBase* stage : stages_) stage->WakeAll();
}

void PipelineContext::CheckCancelled() const {
  if (cancelled()) throw CancelledError("loom.data: the iterator was closed");
}

void PipelineContext::AddStage(AsyncStageBase* stage) {
  std::lock_guard lock(stages_mutex_);
  stages_.push_back(stage);
}

void PipelineContext::RemoveStage(AsyncStageBase* stage) {
  std::lock_guard lock(stages_mutex_);
  stages_.erase(std::remove(stages_.begin(), stages_.end(), stage), stages_.end());
}

void PipelineContext::TopUpStages() {
  std::lock_guard lock(stages_mutex_);
  for (AsyncStageBase* stage : stages_) stage->TopUp();
}

std::vector<PipelineStageDescription> PipelineContext::DescribeStages() const {
  std::lock_guard lock(stages_mutex_);
  std::vector<PipelineStageDescription> out;
  for (const AsyncStageBase* stage : stages_) out.push_back(stage->Describe());
  return out;
}

DatasetNode::DatasetNode(std::shared_ptr<const DatasetNode> input, std::string kind)
    : input_(std::move(input)) {
  int position = 0;
  for (const DatasetNode* node = input_.get(); node != nullptr; node = node->input()) ++position;
  name_ = kind + "#" + std::to_string(position);
}

int64_t DatasetNode::Cardinality() const { return input_->Cardinality(); }

Spec DatasetNode::ElementSpec(const Options* options) const { return input_->ElementSpec(options); }

Spec DatasetNode::SpecOfFirstElement(const Options* options) const {
  std::lock_guard lock(first_element_mutex_);
  if (!first_element_spec_) {
    if (options == nullptr) return std::nullopt;
    Iterator it = Dataset(shared_from_this(), *options).make_iterator();
    std::optional<Element> first = it.next();
    first_element_spec_ = first ? Spec(SpecOf(*first)) : Spec();
  }
  return *first_element_spec_;
}

std::vector<ComponentSpec> SpecOf(const Element& element) {
  std::vector<ComponentSpec> spec;
  for (const Tensor& t : element) spec.push_back({t.dtype(), t.shape().dims()});
  return spec;
}

void RethrowAsPipelineError(const std::string& stage, int64_t element, std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const PipelineError&) {
    throw;
  } catch (const CancelledError&) {
    throw;
  } catch (...) {
    throw PipelineError(stage, element, std::current_exception());
  }
}

}  // namespace loom::data::internal
