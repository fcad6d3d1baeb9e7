#include "runtime/graph_executor.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <string>

#include "loom/errors.h"
#include "runtime/subgraph_runner.h"
#include "tensor/tensor_allocator.h"
#include "threading/cpu_budget.h"
#include "threading/parallel_for.h"
#include "threading/thread_pool.h"

namespace loom::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// What the trace needs about one node's run; written only by the thread
// that ran the node, read by the caller after the step.
struct NodeRecord {
  bool ran = false;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  const threading::WorkerInfo* worker = nullptr;  // the inter-op worker; null = the caller
  int tid = 0;
};

// One intra-op helper's share of a traced node (threading::HelperTraceSink).
struct HelperRecord {
  int node = 0;
  const threading::WorkerInfo* worker = nullptr;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// One run's state. Shared (shared_ptr) with the helper tasks it queues on the
// inter-op pool, because a helper may start after the step is over; it then
// finds nothing to do and drops its reference.
class Step : public std::enable_shared_from_this<Step>,
             public threading::HelperTraceSink,
             public RunControl {
 public:
  Step(std::shared_ptr<const ExecutionPlan> plan, const ExecutorResources& resources,
       const RunOptions& options)
      : plan_(std::move(plan)),
        resources_(resources),
        cancellation_(options.cancellation),
        trace_(options.trace),
        start_(Clock::now()),
        allocator_(std::make_shared<RunAllocator>(resources.buffers, resources.max_run_bytes)),
        slots_(plan_->num_slots()),
        pending_(plan_->nodes().size()),
        reads_left_(plan_->num_slots()),
        records_(trace_ ? plan_->nodes().size() : 0) {
    if (options.timeout.count() > 0) {
      deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(options.timeout);
    }
  }

  // Marks the nodes `fetch_slots` need and counts their producers and reads.
  void Prepare(std::vector<std::pair<int, Value>> feeds, const std::vector<int>& fetch_slots);

  // The caller's part: runs nodes until the step is over, then rethrows the
  // step's error if any. Returns the fetched tensors.
  std::vector<Value> RunAsCaller(const std::vector<int>& fetch_slots);

  void FillStats(RunStats& stats) const;

  // Control flow checks between its subgraph runs (node_kernel.h).
  void CheckInterruption() const override {
    if (std::exception_ptr interruption = Interruption()) std::rethrow_exception(interruption);
  }

  // Traced runs: an intra-op helper's share of node `tag`.
  void RecordHelperSpan(int64_t tag, const threading::WorkerInfo& worker, Clock::time_point begin,
                        Clock::time_point end) override {
    std::lock_guard lock(helper_records_mutex_);
    helper_records_.push_back(
        {static_cast<int>(tag), &worker, SinceStartNs(begin), SinceStartNs(end)});
  }

 private:
  // Runs `node` (or, when -1, nodes from the queue) and whatever it makes
  // ready inline, until nothing is left for this thread.
  void RunNodes(int node);
  void RunAsHelper();
  // Executes one node; false if the step is stopping (the node is skipped)
  // or the node failed (the step stops with its error). The parts:
  //   EnterNode   counts the node as executing unless the step is stopping;
  //   RunKernel   gathers the inputs, runs the kernel, stores the outputs;
  //   StopWithCurrentException  (in a catch) stops the step with the
  //               error, prefixed with the node's name and op;
  //   RecordTime  the node's moving average, run count and trace record;
  //   LeaveNode   uncounts it, waking the caller if the step is stopping.
  bool Execute(int node);
  bool EnterNode();
  void RunKernel(int node);
  void StopWithCurrentException(int node);
  void RecordTime(int node, Clock::time_point begin, Clock::time_point end);
  void LeaveNode();
  // Counts `node` done: frees inputs read for the last time and returns the
  // successor to run next on this thread (or -1); queues the others.
  int Release(int node);
  // Under mutex_: offers the queue's head to an idle caller or a new helper.
  void OfferWorkLocked(int node);
  bool ExpensiveEnoughToHandOff(int node) const;
  void Stop(std::exception_ptr error);
  // A deadline or cancellation that has struck, as an error, else null.
  std::exception_ptr Interruption() const;
  int64_t SinceStartNs(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - start_).count();
  }

  const std::shared_ptr<const ExecutionPlan> plan_;
  const ExecutorResources resources_;
  const std::optional<CancellationToken> cancellation_;
  const bool trace_;
  const Clock::time_point start_;
  std::optional<Clock::time_point> deadline_;
  const std::shared_ptr<RunAllocator> allocator_;

  std::vector<Value> slots_;
  std::vector<char> needed_;
  std::vector<char> fetched_;
  std::vector<std::atomic<int>> pending_;     // per node: producers not finished
  std::vector<std::atomic<int>> reads_left_;  // per slot
  std::vector<NodeRecord> records_;
  mutable std::mutex helper_records_mutex_;
  std::vector<HelperRecord> helper_records_;  // guarded by helper_records_mutex_
  std::atomic<int> nodes_left_{0};
  std::atomic<int> executing_{0};  // nodes running now
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> nodes_run_{0};

  std::mutex mutex_;
  std::condition_variable caller_wakeup_;
  std::deque<int> ready_;        // guarded by mutex_
  int helpers_ = 0;              // guarded: helper runners queued or running
  bool caller_waiting_ = false;  // guarded
  std::exception_ptr error_;     // guarded: the first failure
};

void Step::Prepare(std::vector<std::pair<int, Value>> feeds, const std::vector<int>& fetch_slots) {
  const auto& nodes = plan_->nodes();
  needed_.assign(nodes.size(), 0);
  fetched_.assign(plan_->num_slots(), 0);
  for (auto& [slot, value] : feeds) slots_[slot] = std::move(value);
  for (int slot : fetch_slots) fetched_[slot] = 1;
  // Walk producers backwards from the fetches; nodes are in topological
  // order, so one reverse pass marks everything upstream.
  std::vector<char> slot_needed(plan_->num_slots(), 0);
  for (int slot : fetch_slots) slot_needed[slot] = 1;
  for (size_t i = nodes.size(); i-- > 0;) {
    const PlanNode& node = nodes[i];
    const bool needed = std::any_of(node.outputs.begin(), node.outputs.end(),
                                    [&](int slot) { return slot_needed[slot] != 0; });
    if (!needed) continue;
    needed_[i] = 1;
    for (int slot : node.inputs) {
      if (slot >= 0) slot_needed[slot] = 1;
    }
  }
  int count = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!needed_[i]) continue;
    ++count;
    pending_[i].store(nodes[i].num_producers, std::memory_order_relaxed);
    for (int slot : nodes[i].inputs) {
      if (slot >= 0) reads_left_[slot].fetch_add(1, std::memory_order_relaxed);
    }
  }
  nodes_left_.store(count, std::memory_order_relaxed);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (needed_[i] && nodes[i].num_producers == 0) ready_.push_back(static_cast<int>(i));
  }
}

std::vector<Value> Step::RunAsCaller(const std::vector<int>& fetch_slots) {
  {
    std::lock_guard lock(mutex_);
    // The caller takes the first ready node; offer the others now.
    for (size_t i = 1; i < ready_.size(); ++i) OfferWorkLocked(ready_[i]);
  }
  std::unique_lock lock(mutex_);
  while (true) {
    const bool finished = nodes_left_.load(std::memory_order_acquire) == 0;
    const bool stopped_and_quiet =
        stop_.load(std::memory_order_seq_cst) && executing_.load(std::memory_order_seq_cst) == 0;
    if (finished || stopped_and_quiet) break;
    if (!ready_.empty() && !stop_.load(std::memory_order_relaxed)) {
      lock.unlock();
      RunNodes(-1);
      lock.lock();
      continue;
    }
    caller_waiting_ = true;
    // Block, never spin: on a busy machine the CPU is better spent by the
    // threads running nodes. Wake up for the deadline, and poll a
    // cancellation token (it has no way to notify us) every millisecond.
    // The CPU-budget token goes back for the wait (a runner may need it) and
    // is taken again without the lock: token holders may need the lock to
    // finish their nodes.
    threading::CpuBudget* budget = resources_.cpu_budget;
    const bool had_token = budget != nullptr && budget->HeldByThisThread();
    if (had_token) budget->Release();
    auto wake_at = Clock::time_point::max();
    if (deadline_) wake_at = *deadline_;
    if (cancellation_) wake_at = std::min(wake_at, Clock::now() + std::chrono::milliseconds(1));
    if (wake_at == Clock::time_point::max()) {
      caller_wakeup_.wait(lock);
    } else {
      caller_wakeup_.wait_until(lock, wake_at);
    }
    caller_waiting_ = false;
    if (had_token) {
      lock.unlock();
      budget->Acquire();
      lock.lock();
    }
    if (std::exception_ptr interruption = Interruption()) {
      lock.unlock();
      Stop(interruption);
      lock.lock();
    }
  }
  if (error_) {
    // Moved out, so the exception lives only on the caller's side: a helper
    // may drop the step's last reference later, and destroying the error
    // there raced (for ThreadSanitizer, which cannot see libstdc++'s
    // reference count) with the caller reading it.
    std::exception_ptr error = std::move(error_);
    error_ = nullptr;
    std::rethrow_exception(error);
  }
  std::vector<Value> outputs;
  outputs.reserve(fetch_slots.size());
  for (int slot : fetch_slots) {
    const Tensor* constant = plan_->constant(slot);
    outputs.push_back(constant != nullptr ? Value(*constant) : slots_[slot]);
  }
  // Every node has been released (nodes_left_ reached 0 after each Release),
  // so no helper touches slots_ again. Drop what is left (feeds no node
  // read, fetched values) now, on the caller's thread, rather than wherever
  // the last reference to this step dies: the owner of a borrowed feed
  // (a NumPy array) may only be released in the caller's context.
  slots_.clear();
  return outputs;
}

void Step::RunNodes(int node) {
  detail::ScopedTensorAllocator use(allocator_);
  while (true) {
    if (node < 0) {
      std::lock_guard lock(mutex_);
      if (ready_.empty() || stop_.load(std::memory_order_relaxed)) return;
      node = ready_.front();
      ready_.pop_front();
    }
    if (!Execute(node)) return;
    node = Release(node);
  }
}

void Step::RunAsHelper() {
  {
    // Without a token of the CPU budget the caller (which has one) runs the
    // queued nodes instead.
    const threading::CpuBudgetScope token(resources_.cpu_budget,
                                          threading::CpuBudgetScope::Mode::kTry);
    if (token.held()) RunNodes(-1);
  }
  std::lock_guard lock(mutex_);
  --helpers_;
  if (caller_waiting_) caller_wakeup_.notify_one();
}

bool Step::EnterNode() {
  // Announce first, check stop second (both seq_cst), pairing with the
  // caller's "stop_ then executing_" reads: either we see the stop and skip,
  // or the caller sees us running and waits for us.
  executing_.fetch_add(1, std::memory_order_seq_cst);
  std::exception_ptr interruption = Interruption();
  if (interruption || stop_.load(std::memory_order_seq_cst)) {
    if (interruption) Stop(interruption);
    if (executing_.fetch_sub(1, std::memory_order_seq_cst) == 1) {
      std::lock_guard lock(mutex_);
      caller_wakeup_.notify_one();
    }
    return false;
  }
  return true;
}

void Step::LeaveNode() {
  // The last node to leave after a stop wakes the caller waiting for
  // executing_ to reach 0.
  if (executing_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      stop_.load(std::memory_order_seq_cst)) {
    std::lock_guard lock(mutex_);
    caller_wakeup_.notify_one();
  }
}

void Step::RunKernel(int index) {
  const PlanNode& node = plan_->nodes()[index];
  const threading::ScopedHelperTrace helper_trace(trace_ ? this : nullptr, index);
  RunPlanNode(*plan_, node, slots_, resources_.intra_op_pool, *this);
}

void Step::StopWithCurrentException(int index) {
  const PlanNode& node = plan_->nodes()[index];
  const std::string prefix = "node '" + node.name + "' (" + node.op_type + "): ";
  try {
    throw;
  } catch (const CancelledError&) {
    // Raised inside control flow (CheckInterruption): the run's own error,
    // as the executor gives it between nodes.
    Stop(std::current_exception());
  } catch (const DeadlineExceededError&) {
    Stop(std::current_exception());
  } catch (const InvalidArgumentError& e) {
    Stop(std::make_exception_ptr(InvalidArgumentError(prefix + e.what())));
  } catch (const std::bad_alloc&) {
    Stop(std::make_exception_ptr(RuntimeError(prefix + "out of memory")));
  } catch (const std::exception& e) {
    Stop(std::make_exception_ptr(RuntimeError(prefix + e.what())));
  } catch (...) {
    Stop(std::make_exception_ptr(RuntimeError(prefix + "unknown exception")));
  }
}

void Step::RecordTime(int index, Clock::time_point begin, Clock::time_point end) {
  const PlanNode& node = plan_->nodes()[index];
  const int64_t elapsed = SinceStartNs(end) - SinceStartNs(begin);
  // Exponential moving average with weight 1/4: follows a shape change
  // within a few runs, smooths one preempted run.
  const int64_t average = node.average_ns.load(std::memory_order_relaxed);
  node.average_ns.store(average < 0 ? elapsed : average + (elapsed - average) / 4,
                        std::memory_order_relaxed);
  nodes_run_.fetch_add(1, std::memory_order_relaxed);
  if (trace_) {
    NodeRecord& record = records_[index];
    record.ran = true;
    record.start_ns = SinceStartNs(begin);
    record.end_ns = SinceStartNs(end);
    record.worker = threading::CurrentWorkerInfo();
    record.tid = static_cast<int>(gettid());
  }
}

bool Step::Execute(int index) {
  if (!EnterNode()) return false;
  const Clock::time_point begin = Clock::now();
  bool ok = true;
  try {
    RunKernel(index);
  } catch (...) {
    ok = false;
    StopWithCurrentException(index);
  }
  if (ok) RecordTime(index, begin, Clock::now());
  LeaveNode();
  return ok;
}

int Step::Release(int index) {
  const PlanNode& node = plan_->nodes()[index];
  for (int slot : node.inputs) {
    // acq_rel: the last reader's release orders every reader's use of the
    // tensor before the drop.
    if (slot >= 0 && reads_left_[slot].fetch_sub(1, std::memory_order_acq_rel) == 1 &&
        !fetched_[slot] && plan_->producer(slot) >= 0) {
      slots_[slot] = Value();
    }
  }
  for (int slot : node.outputs) {
    if (reads_left_[slot].load(std::memory_order_relaxed) == 0 && !fetched_[slot]) {
      slots_[slot] = Value();  // nobody will read it
    }
  }
  int next = -1;
  std::vector<int> others;
  for (int successor : node.successors) {
    if (!needed_[successor]) continue;
    // acq_rel: our outputs (slots_ writes) happen before the successor runs,
    // on whichever thread performs the final decrement.
    if (pending_[successor].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
    if (next < 0) {
      next = successor;
    } else {
      others.push_back(successor);
    }
  }
  if (!others.empty()) {
    std::lock_guard lock(mutex_);
    for (int other : others) {
      ready_.push_back(other);
      OfferWorkLocked(other);
    }
  }
  if (nodes_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard lock(mutex_);
    caller_wakeup_.notify_one();
  }
  return next;
}

bool Step::ExpensiveEnoughToHandOff(int node) const {
  // Whoever takes `node` also runs the chain behind it inline (successors
  // that wait for nothing else), so that chain's time is what a hand-off
  // buys. Bounded walk: the sum only has to reach the threshold.
  constexpr int kMaxChainSteps = 16;
  const auto& nodes = plan_->nodes();
  int64_t total = 0;
  for (int step = 0; step < kMaxChainSteps; ++step) {
    const int64_t average = nodes[node].average_ns.load(std::memory_order_relaxed);
    if (average < 0) return true;  // not measured yet: find out in parallel
    total += average;
    if (total >= resources_.hand_off_min_cost_ns) return true;
    const std::vector<int>& successors = nodes[node].successors;
    if (successors.size() != 1 || nodes[successors[0]].num_producers != 1) return false;
    node = successors[0];
  }
  return false;
}

void Step::OfferWorkLocked(int node) {
  if (!ExpensiveEnoughToHandOff(node)) return;
  if (caller_waiting_) {
    caller_waiting_ = false;  // one wake-up per offered node is enough
    caller_wakeup_.notify_one();
    return;
  }
  const int runners = 1 + helpers_;  // the caller always counts
  const bool below_inter_limit = runners < resources_.inter_op_threads;
  // Another runner adds up to intra_op_threads busy threads; beyond the
  // usable CPUs they would only take turns (and spin) on the same cores.
  const bool cpus_left = !resources_.respect_cpu_budget ||
                         (runners + 1) * resources_.intra_op_threads <= resources_.usable_cpus;
  const bool token_free =
      resources_.cpu_budget == nullptr || resources_.cpu_budget->HelperCouldRun();
  if (!below_inter_limit || !cpus_left || !token_free || resources_.inter_op_pool == nullptr) {
    return;
  }
  ++helpers_;
  resources_.inter_op_pool->Schedule([self = shared_from_this()] { self->RunAsHelper(); });
}

void Step::Stop(std::exception_ptr error) {
  std::lock_guard lock(mutex_);
  if (!error_) error_ = std::move(error);
  stop_.store(true, std::memory_order_seq_cst);
  caller_wakeup_.notify_one();
}

std::exception_ptr Step::Interruption() const {
  if (cancellation_ && cancellation_->cancelled()) {
    return std::make_exception_ptr(CancelledError("the run was cancelled"));
  }
  if (deadline_ && Clock::now() >= *deadline_) {
    return std::make_exception_ptr(DeadlineExceededError(
        "the run's deadline passed (" +
        std::to_string(
            std::chrono::duration_cast<std::chrono::microseconds>(*deadline_ - start_).count()) +
        " µs after it started)"));
  }
  return nullptr;
}

void Step::FillStats(RunStats& stats) const {
  stats.wall_ms = static_cast<double>(SinceStartNs(Clock::now())) / 1e6;
  stats.peak_bytes = allocator_->peak_bytes();
  stats.nodes_run = nodes_run_.load(std::memory_order_relaxed);
  stats.trace.clear();
  for (size_t i = 0; i < records_.size(); ++i) {
    const NodeRecord& record = records_[i];
    if (!record.ran) continue;
    const PlanNode& node = plan_->nodes()[i];
    TraceEvent event;
    event.node = node.name;
    event.op = node.op_type;
    event.start_ns = record.start_ns;
    event.end_ns = record.end_ns;
    event.thread = record.worker == nullptr ? std::string("caller") : record.worker->name;
    event.tid = record.tid;
    stats.trace.push_back(std::move(event));
  }
  std::lock_guard lock(helper_records_mutex_);
  for (const HelperRecord& record : helper_records_) {
    const PlanNode& node = plan_->nodes()[record.node];
    TraceEvent event;
    event.node = node.name;
    event.op = node.op_type;
    event.start_ns = record.start_ns;
    event.end_ns = record.end_ns;
    event.thread = record.worker->name;
    event.tid = record.worker->tid;
    event.intra_op_helper = true;
    stats.trace.push_back(std::move(event));
  }
  std::stable_sort(
      stats.trace.begin(), stats.trace.end(),
      [](const TraceEvent& a, const TraceEvent& b) { return a.start_ns < b.start_ns; });
}

}  // namespace

std::vector<Value> ExecuteStep(const std::shared_ptr<const ExecutionPlan>& plan,
                               const ExecutorResources& resources,
                               std::vector<std::pair<int, Value>> feeds,
                               const std::vector<int>& fetch_slots, const RunOptions& options,
                               RunStats* stats) {
  auto step = std::make_shared<Step>(plan, resources, options);
  step->Prepare(std::move(feeds), fetch_slots);
  std::vector<Value> outputs;
  try {
    outputs = step->RunAsCaller(fetch_slots);
  } catch (...) {
    if (stats != nullptr) step->FillStats(*stats);
    throw;
  }
  if (stats != nullptr) step->FillStats(*stats);
  return outputs;
}

}  // namespace loom::runtime
