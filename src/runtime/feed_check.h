// Checking what a caller passes to Session::run against the graph, before
// any node runs: every error names the input or fetch and says what was
// expected.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loom/graph.h"
#include "loom/value.h"
#include "runtime/execution_plan.h"

namespace loom::runtime {

// Checks `feeds` against the graph inputs: no unknown names, every input
// without an initializer default present, dtypes equal, ranks and known
// dimensions equal, and each symbolic dimension bound to one size across all
// inputs. A sequence input takes a sequence of its element dtype (each
// element's rank and known dimensions checked; its symbols bind nothing, as
// elements may differ); an optional input also takes Value::None(), and
// is empty when not fed (as in ONNX Runtime).
// Returns (slot, value) pairs, defaults included.
std::vector<std::pair<int, Value>> CheckFeeds(const Graph& graph, const ExecutionPlan& plan,
                                              const std::map<std::string, Value>& feeds);

// The slots of `fetches`; throws for a name the optimized graph lacks.
std::vector<int> ResolveFetches(const Graph& graph, const ExecutionPlan& plan,
                                const std::vector<std::string>& fetches);

}  // namespace loom::runtime
