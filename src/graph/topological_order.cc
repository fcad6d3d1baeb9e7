#include "graph/topological_order.h"

#include <functional>
#include <queue>
#include <string>
#include <unordered_map>

namespace loom::graph {

TopologicalOrder SortTopologically(const Graph& graph) {
  const size_t count = graph.nodes.size();
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < count; ++i) {
    for (const std::string& output : graph.nodes[i].outputs) producer.emplace(output, i);
  }
  std::vector<std::vector<size_t>> consumers(count);
  std::vector<size_t> pending(count, 0);
  for (size_t i = 0; i < count; ++i) {
    for (const std::string& input : graph.nodes[i].inputs) {
      auto it = producer.find(input);
      if (input.empty() || it == producer.end()) continue;
      consumers[it->second].push_back(i);
      ++pending[i];
    }
  }
  // A min-heap keeps ties in node order, so the order is deterministic and
  // follows the order the graph was written in.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < count; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  TopologicalOrder result;
  result.order.reserve(count);
  while (!ready.empty()) {
    const size_t node = ready.top();
    ready.pop();
    result.order.push_back(node);
    for (size_t consumer : consumers[node]) {
      if (--pending[consumer] == 0) ready.push(consumer);
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (pending[i] != 0) result.unsorted.push_back(i);
  }
  return result;
}

}  // namespace loom::graph
