#include "loom/session.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/int_math.h"
#include "graph/passes/passes.h"
#include "kernels/nchwc/nchwc.h"
#include "kernels/process_isa.h"
#include "kernels/registry.h"
#include "loom/errors.h"
#include "loom/memory.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"
#include "runtime/feed_check.h"
#include "runtime/graph_executor.h"
#include "threading/parallel_for.h"
#include "threading/runtime.h"
#include "threading/thread_pool.h"

namespace loom {
namespace {

// Idle buffers a session keeps for reuse. Bounded so a session that once ran
// a huge batch does not pin that memory forever; ResNet-50 at batch 32 needs
// about 1.2 GB of activations at its peak, far less live at once.
constexpr size_t kMaxCachedBytes = size_t{1} << 30;

std::unique_ptr<threading::Runtime> MakePrivateRuntime(const SessionOptions& options) {
  if (options.intra_op_threads < 0 || options.inter_op_threads < 0) {
    throw InvalidArgumentError(
        "SessionOptions: thread counts must be >= 0 (0 = automatic), got intra_op_threads=" +
        std::to_string(options.intra_op_threads) +
        ", inter_op_threads=" + std::to_string(options.inter_op_threads));
  }
  if (options.intra_op_threads > config::threading::kMaxThreads ||
      options.inter_op_threads > config::threading::kMaxThreads) {
    throw InvalidArgumentError("SessionOptions: thread counts must be at most " +
                               std::to_string(config::threading::kMaxThreads));
  }
  // The global settings as they stand, not frozen: this session's pools
  // replace the global ones, so only the CPU budget (shared) is fixed here.
  threading::ResolvedThreading settings = threading::GlobalThreadingConfig().Resolve();
  threading::CpuBudget* budget = threading::ProcessCpuBudget();
  settings.cpu_budget = threading::GlobalThreadingConfig().FreezeCpuBudget();
  const int usable = settings.cpu.usable;
  settings.intra_op_threads = {options.intra_op_threads > 0 ? options.intra_op_threads : usable,
                               options.intra_op_threads > 0 ? "session" : "auto"};
  settings.inter_op_threads = {options.inter_op_threads > 0 ? options.inter_op_threads
                                                            : threading::AutoInterOpThreads(usable),
                               options.inter_op_threads > 0 ? "session" : "auto"};
  // Numbered in creation order; the number names the threads.
  static std::atomic<int64_t> sessions_with_private_pools{0};
  const int64_t number = sessions_with_private_pools.fetch_add(1, std::memory_order_relaxed) + 1;
  const std::string id = std::to_string(number);
  // The process's CPU budget covers private pools too.
  return std::make_unique<threading::Runtime>(settings, budget, "s" + id, "session " + id);
}

// Refuses, before anything runs, a graph with a value whose static shape
// needs more bytes than a run may ever hold: the session's cap
// (max_memory_bytes) or the process's (memory_cap()). Values with symbolic
// dims are left to the allocator's check at run time.
void CheckStaticSizes(const Graph& graph, int64_t session_cap) {
  const MemoryCap process = memory_cap();
  auto check = [&](const std::string& value, const TensorType& type) {
    if (!type.shape) return;
    std::vector<int64_t> factors{static_cast<int64_t>(dtype_size(type.dtype))};
    for (const Dim& dim : *type.shape) {
      if (!dim.is_known()) return;
      factors.push_back(dim.size());
    }
    const std::optional<int64_t> product = base::CheckedProduct(factors);
    const bool overflow = !product;
    const uint64_t bytes = overflow ? 0 : static_cast<uint64_t>(*product);
    const bool over_session =
        session_cap > 0 && (overflow || bytes > static_cast<uint64_t>(session_cap));
    const bool over_process = overflow || bytes > static_cast<uint64_t>(process.bytes);
    if (!over_session && !over_process) return;
    const Node* producer = graph.producer_of(value);
    const std::string size = overflow ? "more than 2^63 bytes" : std::to_string(bytes) + " bytes";
    throw RuntimeError(
        "Session: value '" + value + "'" +
        (producer != nullptr
             ? " (output of node '" + producer->name + "', " + producer->op_type + ")"
             : "") +
        " is " + type.to_string() + ": " + size + ", above " +
        (over_session ? "the session's max_memory_bytes of " + std::to_string(session_cap)
                      : "the memory cap of " + std::to_string(process.bytes) + " bytes (" +
                            process.source + "; set LOOM_MAX_MEMORY to change it)"));
  };
  for (const auto& [value, type] : graph.value_types) check(value, type);
  for (const ValueInfo& output : graph.outputs) check(output.name, output.type);
}

}  // namespace

struct Session::Impl {
  SessionOptions options;
  Graph graph;
  std::unique_ptr<threading::Runtime> private_runtime;  // declared before use below
  threading::Runtime* runtime = nullptr;
  std::shared_ptr<const runtime::ExecutionPlan> plan;
  runtime::ExecutorResources resources;
  std::vector<int> default_fetches;
};

Session::Session(Graph graph, SessionOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  if (options.optimization_level < 0 || options.optimization_level > 2) {
    throw InvalidArgumentError("SessionOptions: optimization_level must be 0, 1 or 2, got " +
                               std::to_string(options.optimization_level));
  }
  // A session on the global pools starts the global runtime, which freezes
  // the configuration as TensorFlow's first session does. One with private
  // pools leaves the global pools alone (unstarted and open to changes).
  if (options.use_private_thread_pools) {
    impl_->private_runtime = MakePrivateRuntime(options);
    impl_->runtime = impl_->private_runtime.get();
  } else {
    impl_->runtime = &threading::GlobalRuntime();
  }
  const kernels::Isa isa = kernels::ProcessIsa();
  threading::ThreadPool* intra_pool = impl_->runtime->intra_op_pool();

  verify_graph(graph);
  graph::OptimizationOptions optimization;
  optimization.level = options.optimization_level;
  optimization.nchwc_block = options.blocked_layout ? kernels::NchwcBlockSize(isa) : 0;
  optimization.winograd = options.winograd;
  optimization.evaluate = [intra_pool, isa](const Node& node,
                                            const std::vector<const Tensor*>& inputs) {
    const kernels::KernelRegistration* registration = kernels::FindKernel(node.op_type);
    if (registration == nullptr) throw InvalidArgumentError("no kernel for '" + node.op_type + "'");
    return kernels::RunKernel(*registration, {intra_pool, isa}, node.attributes,
                              kernels::KernelInputs(inputs.data(), inputs.size()));
  };
  graph::OptimizeGraph(graph, optimization);
  verify_graph(graph);
  CheckStaticSizes(graph, options.max_memory_bytes);
  impl_->graph = std::move(graph);
  impl_->plan = std::make_shared<runtime::ExecutionPlan>(impl_->graph, isa);

  const threading::ResolvedThreading& settings = impl_->runtime->settings();
  impl_->resources.intra_op_pool = intra_pool;
  // A sequential session never asks for the inter-op pool, so a pool
  // created on first use is not created for it.
  impl_->resources.inter_op_pool = options.sequential ? nullptr : impl_->runtime->inter_op_pool();
  impl_->resources.intra_op_threads = settings.intra_op_threads.value;
  impl_->resources.inter_op_threads = options.sequential ? 1 : settings.inter_op_threads.value;
  impl_->resources.usable_cpus = settings.cpu.usable;
  impl_->resources.cpu_budget = impl_->runtime->cpu_budget();
  impl_->resources.buffers = std::make_shared<runtime::BufferPool>(kMaxCachedBytes);
  impl_->resources.max_run_bytes = options.max_memory_bytes;
  impl_->default_fetches = impl_->plan->output_slots();
}

Session::~Session() = default;

std::vector<Tensor> Session::run(const std::map<std::string, Tensor>& feeds,
                                 const std::vector<std::string>& fetches, const RunOptions& options,
                                 RunStats* stats) const {
  const std::map<std::string, Value> values(feeds.begin(), feeds.end());
  std::vector<Value> outputs = run_values(values, fetches, options, stats);
  std::vector<Tensor> tensors;
  tensors.reserve(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is_tensor()) {
      const std::string name = fetches.empty() ? impl_->graph.outputs[i].name : fetches[i];
      throw InvalidArgumentError("run: '" + name + "' is " + outputs[i].describe() +
                                 ", not a tensor: fetch it with run_values");
    }
    tensors.push_back(std::move(outputs[i].tensor()));
  }
  return tensors;
}

std::vector<Value> Session::run_values(const std::map<std::string, Value>& feeds,
                                       const std::vector<std::string>& fetches,
                                       const RunOptions& options, RunStats* stats) const {
  std::vector<std::pair<int, Value>> fed = runtime::CheckFeeds(impl_->graph, *impl_->plan, feeds);
  std::vector<int> fetch_slots = fetches.empty()
                                     ? impl_->default_fetches
                                     : runtime::ResolveFetches(impl_->graph, *impl_->plan, fetches);
  // The intra-op workers stay awake between this run's fork-joins, unless
  // this thread may not use them (a ScopedParallelismLimit of 1, as in a
  // loom.data map function): then spinning would only take CPU from the
  // threads doing the work.
  threading::ThreadPool* intra = impl_->resources.intra_op_pool;
  // The run computes under a token of the process's CPU budget (waiting
  // for one, in arrival order, when other threads hold them all).
  const threading::CpuBudgetScope token(impl_->resources.cpu_budget,
                                        threading::CpuBudgetScope::Mode::kWait);
  const threading::ThreadPool::SpinScope spin(threading::MaxParallelism(intra) > 1 ? intra
                                                                                   : nullptr);
  return runtime::ExecuteStep(impl_->plan, impl_->resources, std::move(fed), fetch_slots, options,
                              stats);
}

const std::vector<ValueInfo>& Session::inputs() const { return impl_->graph.inputs; }
const std::vector<ValueInfo>& Session::outputs() const { return impl_->graph.outputs; }
const Graph& Session::graph() const { return impl_->graph; }
int Session::intra_op_threads() const { return impl_->resources.intra_op_threads; }
int Session::inter_op_threads() const { return impl_->resources.inter_op_threads; }

}  // namespace loom
