#include "threading/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "platform/futex.h"
#include "threading/thread_pool.h"

namespace loom::threading {
namespace {

// The loop is cut into grains, and a thread claims several at a time: a
// claim takes 1/(kClaimDivisor x threads) of the grains left, at least one
// (guided scheduling, from both ends). Early claims are long, so claiming
// stays cheap; the last ones are single grains, so the threads end within
// about a grain of each other. With fixed shards (4 a thread) they ended a
// shard apart: at intra 2 on Zen 3, the later thread finished 10-22 us after
// the other in RegNet-X-400MF's, MobileNet-V3's and a chain of 400-channel
// 1x1 convs' loops of 75-150 us (bench/results/parallel-for-guided-2026-12-07.md).
constexpr int64_t kClaimDivisor = 2;

// Grains per thread: at least kMinGrainsPerThread, so a thread that was
// preempted or started late leaves work the others can take; more for long
// loops, each near kTargetGrainNs, up to kMaxGrainsPerThread (see
// GrainsPerThread).
constexpr int64_t kMinGrainsPerThread = 4;
constexpr int64_t kMaxGrainsPerThread = 64;
constexpr double kTargetGrainNs = 10'000;

// Helpers that do not get a CPU: after this many fork-joins in a row in
// which the caller ran every shard, loops smaller than kWakeAwayMinCostNs
// run inline, except every kInlineProbeInterval-th, which asks the helpers
// again (one that runs a shard ends the streak). A helper runnable behind
// another process's busy thread (ONNX Runtime's workers spin for
// milliseconds after each run), or on a vCPU the host has not scheduled,
// ran nothing while the caller paid for sharding, queueing and waiting: a
// 2-layer encoder at intra 2 took 0.75-0.89 ms against 0.56-0.72 ms at
// intra 1 (bench/results/threading-colocation-2026-12-04.md). Larger loops
// always ask: their sharding costs little next to the work.
constexpr int kUnhelpedJobsBeforeInline = 4;
constexpr uint32_t kInlineProbeInterval = 8;

// State shared by the caller and its helpers. Helpers hold it by shared_ptr
// because a helper may wake up after the caller has returned; it then finds
// no shard left and only drops its reference.
struct Job {
  const RangeFn* fn = nullptr;  // valid while some shard is unfinished
  CpuBudget* budget = nullptr;  // the pool's; helpers take a token of it
  // The caller's ScopedHelperTrace, if any; valid while some shard is
  // unfinished, as `fn`.
  HelperTraceSink* trace_sink = nullptr;
  int64_t trace_tag = 0;
  int64_t n = 0;
  int64_t num_grains = 0;
  int64_t threads = 1;  // the threads the loop was sized for
  // The grains nobody has claimed, [front, back): front in the low 32 bits,
  // back in the high 32. The caller claims from the front, helpers from the
  // back, so the caller always runs a prefix of the loop and the helpers
  // the rest; the same loop in the next run splits about the same way. One
  // word, so that a front and a back claim racing for the last grains see
  // each other.
  //
  // Why ends and not one counter: a thread's stores to lines another core
  // last wrote wait for those lines to move over. With one shared counter
  // the threads interleaved shards at random, so a node's output (the same
  // buffer every run) landed in the other core's cache about half the time,
  // and the next node read half its input from there. Split at the ends,
  // alternated in one process at intra 2 (bench/results/nchwc-pointwise-
  // 2026-12-04.md): RegNet-X-400MF 0.94-0.96x, ResNet-18 0.96x,
  // EfficientNet-B0 0.98x, MobileNet-V2/V3 0.98x, a chain of 1x1 convs 0.94x.
  std::atomic<uint64_t> unclaimed{0};

  // Grains [first, last) of one claim; empty when none was left.
  struct Claimed {
    int64_t first = 0, last = 0;
    bool empty() const { return first >= last; }
  };

  // How many grains a claim takes when `left` are unclaimed (left > 0).
  int64_t ClaimSize(int64_t left) const {
    return std::max<int64_t>(1, left / (kClaimDivisor * threads));
  }

  // Relaxed: a claim only hands out indices; the work a grain does is
  // published by the release decrement of `unfinished`.
  Claimed Claim(bool helper) {
    uint64_t v = unclaimed.load(std::memory_order_relaxed);
    for (;;) {
      const auto front = static_cast<int64_t>(v & 0xffff'ffffu);
      const auto back = static_cast<int64_t>(v >> 32);
      if (front >= back) return {};
      const int64_t take = ClaimSize(back - front);
      const uint64_t next =
          helper ? v - (static_cast<uint64_t>(take) << 32) : v + static_cast<uint64_t>(take);
      if (unclaimed.compare_exchange_weak(v, next, std::memory_order_relaxed)) {
        return helper ? Claimed{back - take, back} : Claimed{front, front + take};
      }
    }
  }

  bool AllClaimed() const {
    const uint64_t v = unclaimed.load(std::memory_order_relaxed);
    return static_cast<int64_t>(v & 0xffff'ffffu) >= static_cast<int64_t>(v >> 32);
  }
  // Grains not yet finished (run or skipped); the caller's futex word.
  std::atomic<uint32_t> unfinished{0};
  std::atomic<uint32_t> caller_waiting{0};
  std::atomic<bool> failed{false};
  // Set by a helper that claims a shard; read by the caller after the job.
  std::atomic<bool> helped{false};
  std::mutex error_mutex;
  std::exception_ptr error;

  // Grain k covers [GrainBegin(k), GrainBegin(k + 1)); the first n % grains
  // grains get one extra index. Written without k * n, which overflows for
  // huge n.
  int64_t GrainBegin(int64_t k) const { return k * (n / num_grains) + std::min(k, n % num_grains); }

  // Claims and runs grains until none is left. Returns when this thread can
  // no longer help, not when the job is done. `helper`: a pool worker, not
  // the caller (only helpers report to the trace sink).
  void RunShards(bool helper) {
    // A helper without a token of the CPU budget leaves the shards to the
    // caller, which holds one and finishes them all if nobody helps.
    // A helper arriving after the caller took every shard takes no token:
    // the caller's next ParallelFor must find it free, not run serially.
    if (AllClaimed()) return;
    CpuBudgetScope token(budget, CpuBudgetScope::Mode::kTry);
    if (!token.held()) return;
    const WorkerInfo* traced = helper && trace_sink != nullptr ? CurrentWorkerInfo() : nullptr;
    const auto trace_begin = traced != nullptr ? std::chrono::steady_clock::now()
                                               : std::chrono::steady_clock::time_point{};
    Claimed claim = Claim(helper);
    if (claim.empty()) return;  // taken meanwhile; nothing ran here
    // Relaxed: the caller reads it after acquiring unfinished == 0, which
    // this claim's release decrement orders after this store.
    if (helper) helped.store(true, std::memory_order_relaxed);
    while (!claim.empty()) {
      if (!failed.load(std::memory_order_relaxed)) {
        try {
          (*fn)(GrainBegin(claim.first), GrainBegin(claim.last));
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!error) error = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
      // The next claim is made before this one counts as done, so a helper
      // whose last claim it was gives its token back first: the caller's
      // next ParallelFor must find it free, not run serially.
      const Claimed next = Claim(helper);
      if (next.empty()) {
        token.ReleaseNow();
        if (traced != nullptr) {
          trace_sink->RecordHelperSpan(trace_tag, *traced, trace_begin,
                                       std::chrono::steady_clock::now());
        }
      }
      // Seq_cst pairs with the caller's "caller_waiting = 1; load unfinished":
      // either the caller sees 0 or we see it waiting and wake it.
      const auto done = static_cast<uint32_t>(claim.last - claim.first);
      if (unfinished.fetch_sub(done, std::memory_order_seq_cst) == done &&
          caller_waiting.load(std::memory_order_seq_cst) != 0) {
        platform::FutexWake(unfinished, 1);
      }
      claim = next;
    }
  }

  void WaitUntilFinished(const ThreadPool* pool, int spin_wait_us) {
    if (unfinished.load(std::memory_order_acquire) == 0) return;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::microseconds(spin_wait_us);
    int spins = 0;
    while (unfinished.load(std::memory_order_acquire) != 0) {
      if (spin_wait_us > 0 && std::chrono::steady_clock::now() < deadline) {
        platform::CpuRelax();
        // Yield now and then (ThreadPool::SpinnersShouldYield): the thread
        // running the last shard may share our CPU, and pure spinning would
        // keep it off for a time slice. Inside a session run, only when
        // Loom's threads outnumber the CPUs; a helper on our CPU still gets
        // it when the spin ends (spin_wait_us).
        if (++spins % 256 == 0 && pool->SpinnersShouldYield()) std::this_thread::yield();
        continue;
      }
      caller_waiting.store(1, std::memory_order_seq_cst);
      const uint32_t left = unfinished.load(std::memory_order_seq_cst);
      if (left != 0) platform::FutexWait(unfinished, left);
    }
  }
};

// Negative or NaN costs count as free work.
double SanitizedCost(double cost_per_unit_ns) {
  return cost_per_unit_ns > 0 ? cost_per_unit_ns : 0.0;
}

// Grains per thread for a loop of n units: kMinGrainsPerThread, more for
// long loops so each grain stays near kTargetGrainNs.
int64_t GrainsPerThread(int threads, int64_t n, double cost_per_unit_ns) {
  const double total = static_cast<double>(n) * SanitizedCost(cost_per_unit_ns);
  const double per_thread = std::floor(total / (threads * kTargetGrainNs));
  return static_cast<int64_t>(
      std::clamp<double>(per_thread, kMinGrainsPerThread, kMaxGrainsPerThread));
}

// 0 = no limit on this thread.
thread_local int parallelism_limit = 0;

// The innermost ScopedHelperTrace on this thread.
thread_local HelperTraceSink* trace_sink = nullptr;
thread_local int64_t trace_tag = 0;

}  // namespace

ScopedHelperTrace::ScopedHelperTrace(HelperTraceSink* sink, int64_t tag)
    : previous_sink_(trace_sink), previous_tag_(trace_tag) {
  if (sink != nullptr) {
    trace_sink = sink;
    trace_tag = tag;
  }
}

ScopedHelperTrace::~ScopedHelperTrace() {
  trace_sink = previous_sink_;
  trace_tag = previous_tag_;
}

ScopedParallelismLimit::ScopedParallelismLimit(int max_threads) : previous_(parallelism_limit) {
  if (max_threads > 0 && (previous_ == 0 || max_threads < previous_)) {
    parallelism_limit = max_threads;
  }
}

ScopedParallelismLimit::~ScopedParallelismLimit() { parallelism_limit = previous_; }

int MaxParallelism(const ThreadPool* pool) {
  const int threads = pool != nullptr ? pool->num_threads() + 1 : 1;
  return parallelism_limit > 0 ? std::min(threads, parallelism_limit) : threads;
}

int ParallelForThreadCount(const ThreadPool* pool, int64_t n, double cost_per_unit_ns) {
  if (pool == nullptr || pool->num_threads() == 0 || n <= 1) return 1;
  const double total = static_cast<double>(n) * SanitizedCost(cost_per_unit_ns);
  const double by_cost = std::floor(total / kMinShardCostNs);
  const int64_t max_threads = MaxParallelism(pool);
  const int64_t threads =
      std::min<int64_t>({max_threads, n, static_cast<int64_t>(std::min(by_cost, 1e9))});
  return static_cast<int>(std::max<int64_t>(threads, 1));
}

void ParallelFor(ThreadPool* pool, int64_t n, double cost_per_unit_ns, const RangeFn& fn) {
  if (n <= 0) return;
  const int threads = ParallelForThreadCount(pool, n, cost_per_unit_ns);
  // The caller computes under a token (its own if it holds one already).
  CpuBudget* budget = pool != nullptr ? pool->cpu_budget() : nullptr;
  CpuBudgetScope token(threads > 1 ? budget : nullptr, CpuBudgetScope::Mode::kWait);
  if (threads <= 1 || (budget != nullptr && !budget->HelperCouldRun())) {
    fn(0, n);
    return;
  }
  const double total_cost_ns = static_cast<double>(n) * SanitizedCost(cost_per_unit_ns);
  ThreadPool::HelpRecord& help = pool->help_record();
  const bool small = total_cost_ns < kWakeAwayMinCostNs;
  if (small &&
      help.unhelped_in_a_row.load(std::memory_order_relaxed) >= kUnhelpedJobsBeforeInline &&
      help.skipped.fetch_add(1, std::memory_order_relaxed) % kInlineProbeInterval != 0) {
    fn(0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->budget = budget;
  job->trace_sink = trace_sink;
  job->trace_tag = trace_tag;
  job->n = n;
  job->threads = threads;
  job->num_grains = std::min<int64_t>(n, threads * GrainsPerThread(threads, n, cost_per_unit_ns));
  job->unfinished.store(static_cast<uint32_t>(job->num_grains), std::memory_order_relaxed);
  job->unclaimed.store(static_cast<uint64_t>(job->num_grains) << 32, std::memory_order_relaxed);
  // Helpers beyond the free tokens would only find none.
  const int helpers =
      budget == nullptr ? threads - 1 : std::min(threads - 1, budget->tokens() - budget->in_use());
  const int asked = pool->ScheduleHelpers(
      helpers, [job] { job->RunShards(/*helper=*/true); },
      small ? WakePlacement::kAnyCpu : WakePlacement::kAwayFromWaker);
  job->RunShards(/*helper=*/false);
  job->WaitUntilFinished(pool, pool->spin_wait_us());
  if (asked > 0) {
    if (job->helped.load(std::memory_order_relaxed)) {
      help.unhelped_in_a_row.store(0, std::memory_order_relaxed);
    } else {
      help.unhelped_in_a_row.fetch_add(1, std::memory_order_relaxed);
    }
  }
  // Take the error out of the job: a helper may drop the last reference to
  // the job later, and the exception must then belong to this thread alone.
  std::exception_ptr error;
  {
    std::lock_guard lock(job->error_mutex);
    error = std::move(job->error);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace loom::threading
