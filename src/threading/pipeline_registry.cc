#include "threading/pipeline_registry.h"

#include <map>
#include <mutex>

namespace loom::threading {
namespace {

struct Registry {
  std::mutex mutex;
  int64_t next_id = 1;
  std::map<int64_t, std::function<PipelineDescription()>> reports;
};

Registry& GlobalRegistry() {
  // Leaked: iterators may be destroyed during static destruction.
  static auto* registry = new Registry;
  return *registry;
}

}  // namespace

int64_t RegisterPipeline(std::function<PipelineDescription()> report) {
  Registry& registry = GlobalRegistry();
  std::lock_guard lock(registry.mutex);
  const int64_t id = registry.next_id++;
  registry.reports.emplace(id, std::move(report));
  return id;
}

void UnregisterPipeline(int64_t id) {
  Registry& registry = GlobalRegistry();
  std::lock_guard lock(registry.mutex);
  registry.reports.erase(id);
}

std::vector<PipelineDescription> DescribeLivePipelines() {
  Registry& registry = GlobalRegistry();
  std::lock_guard lock(registry.mutex);
  std::vector<PipelineDescription> all;
  for (const auto& [id, report] : registry.reports) {
    PipelineDescription description = report();
    description.id = id;
    all.push_back(std::move(description));
  }
  return all;
}

}  // namespace loom::threading
