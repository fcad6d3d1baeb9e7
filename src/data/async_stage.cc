#include "data/async_stage.h"

#include <algorithm>
#include <chrono>

#include "threading/thread_pool.h"

namespace loom::data::internal {
namespace {

// How long a consumer with nothing in flight gives a queued pool task to
// start before computing the element itself. Long enough for a sleeping
// worker's wake-up (~10-50 µs), short enough not to matter when the pool is
// busy elsewhere.
constexpr auto kPoolStartGrace = std::chrono::milliseconds(1);

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

AsyncStage::AsyncStage(PipelineContext& context, std::unique_ptr<IteratorNode> input, Config config)
    : context_(context),
      input_(std::move(input)),
      config_(std::move(config)),
      gate_(std::make_shared<Gate>()) {
  if (config_.knob == kAutotune) tuner_.emplace(config_.autotune_max);
  gate_->stage = this;
  context_.AddStage(this);
}

AsyncStage::~AsyncStage() {
  {
    std::lock_guard lock(gate_->mutex);
    gate_->stage = nullptr;
  }
  context_.RemoveStage(this);
  std::unique_lock lock(mutex_);
  closing_ = true;
  changed_.wait(lock, [&] { return running_tasks_ == 0; });
}

int AsyncStage::KnobLocked() const { return tuner_ ? tuner_->value() : config_.knob; }

int AsyncStage::ParallelismLocked() const { return config_.role == Role::kMap ? KnobLocked() : 1; }

int AsyncStage::CapacityLocked() const {
  const int knob = KnobLocked();
  // A map holds finished elements beside the ones in progress: with room
  // for only `parallelism` in all, a thread that finishes before the
  // element ahead of it has been taken must stop, and the stage runs below
  // its parallelism (measured: bench/results/data-pipeline-2026-11-30.md).
  // A prefetch's buffer counts finished elements, as in tf.data: the one it
  // is computing comes on top, so prefetch(1) keeps working while its one
  // finished element waits (with room for 1 in all, it stopped at every
  // element and pipeline-only throughput fell ~25 %, measured in
  // bench/results/data-vs-tfdata-2026-11-30.md).
  return config_.role == Role::kMap ? 2 * knob : knob + 1;
}

bool AsyncStage::CanClaimLocked() const {
  return !context_.cancelled() && !closing_ && !end_of_input_ && claims_ < ParallelismLocked() &&
         static_cast<int>(slots_.size()) + unslotted_ < CapacityLocked();
}

void AsyncStage::ClaimLocked() {
  ++claims_;
  ++unslotted_;  // until ComputeOne has pulled the input and made its slot
}

int AsyncStage::ReadySlotLocked() const {
  if (config_.deterministic) return !slots_.empty() && slots_.front()->done ? 0 : -1;
  int earliest = -1;
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i]->done && (earliest < 0 || slots_[i]->finished < slots_[earliest]->finished)) {
      earliest = static_cast<int>(i);
    }
  }
  return earliest;
}

void AsyncStage::TopUpLocked() {
  if (context_.cancelled() || closing_ || end_of_input_) return;
  // A task without a token would exit at once, and scheduling it again on
  // the next wake-up turns a budget below the parallelism into a busy loop.
  // When a token comes back after work, its holder tops up every stage
  // (TaskMain, GetNext); a task that found none looks again as it leaves.
  if (!context_.budget().HasFreeToken()) return;
  const int room = CapacityLocked() - static_cast<int>(slots_.size()) - unslotted_;
  const int wanted = std::min(ParallelismLocked() - claims_, room);
  // Tasks already queued or running will claim too; only add the rest.
  const int idle_tasks = scheduled_ - claims_;
  for (int i = std::max(idle_tasks, 0); i < wanted; ++i) {
    ++scheduled_;
    context_.pool()->Schedule([gate = gate_] {
      AsyncStage* stage = nullptr;
      {
        std::lock_guard gate_lock(gate->mutex);
        stage = gate->stage;
        if (stage == nullptr) return;
        std::lock_guard lock(stage->mutex_);
        ++stage->running_tasks_;
      }
      stage->TaskMain();
    });
  }
}

void AsyncStage::TaskMain() {
  bool computed = false;
  while (true) {
    bool claimed = false;
    {
      BudgetHold hold(context_.budget(), BudgetHold::Mode::kTry);
      if (hold.held()) {
        std::lock_guard lock(mutex_);
        if (CanClaimLocked()) {
          ClaimLocked();
          claimed = true;
        }
      }
      if (claimed) ComputeOne();
    }
    if (!claimed) break;
    computed = true;
  }
  // Still counted in running_tasks_, so this stage (and the context) stay
  // alive; no lock held (see TopUpStages' lock order).
  if (computed) context_.TopUpStages();
  // The token is back before the stage may be destroyed.
  std::lock_guard lock(mutex_);
  --scheduled_;
  --running_tasks_;
  // Whatever made this task leave, a top-up while it still counted as
  // scheduled added no task: the stage thought one was coming. Look again
  // now that it is not: a token given back between its failed try and here
  // (that case left out stalled a prefetch 10 times in 3,000 pipelines), or
  // room made by the consumer between its "no room" and here (left out, a
  // full prefetch that the consumer took 4 elements from stayed at 1 of 5
  // in ~1 of 8 runs of ElementsInFlightAreBoundedByParallelismPlusBuffer on
  // a loaded 2-CPU machine). TopUpLocked adds only tasks that could claim
  // and have a free token, so leaving tasks cannot keep rescheduling one
  // another. (With a thread waiting for a free token, a new task may fail
  // too and look again, until that thread has taken it: a few pool tasks,
  // not a loop without end.)
  TopUpLocked();
  // Only the destructor waits for tasks to leave; waking the consumer here
  // would just make it schedule another task.
  if (closing_) changed_.notify_all();
}

void AsyncStage::ComputeOne() {
  Slot* slot = nullptr;
  std::optional<Element> element;
  std::exception_ptr error;
  {
    std::unique_lock input_lock(input_mutex_, std::try_to_lock);
    if (!input_lock.owns_lock()) {
      // Another thread is pulling (and may be waiting for a token itself):
      // do not sit on a token while blocked behind it.
      CpuBudget& budget = context_.budget();
      const bool had_token = budget.HeldByThisThread();
      if (had_token) budget.Release();
      input_lock.lock();
      if (had_token) budget.Acquire();  // fails only when cancelled
    }
    try {
      element = input_->GetNext();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    --unslotted_;
    if (!error && !element) {
      end_of_input_ = true;
      --claims_;
      changed_.notify_all();
      return;
    }
    slots_.push_back(std::make_unique<Slot>());
    slot = slots_.back().get();
    slot->index = next_index_++;
  }
  if (!error && config_.fn) {
    try {
      element = context_.CallUser([&] { return config_.fn(std::move(*element)); });
    } catch (...) {
      error = std::current_exception();
    }
  }
  std::lock_guard lock(mutex_);
  slot->done = true;
  slot->finished = ++finished_count_;
  if (error) {
    // Moved, not copied: a copy left here would be released after the
    // unlock, possibly as the last reference once the consumer is done with
    // the error; ThreadSanitizer cannot see libstdc++'s reference count and
    // reports that free as a race.
    slot->error = std::move(error);
  } else {
    slot->value = std::move(element);
  }
  --claims_;
  changed_.notify_all();
}

void AsyncStage::WaitWithoutToken(std::unique_lock<std::mutex>& lock,
                                  std::optional<std::chrono::milliseconds> timeout) {
  CpuBudget& budget = context_.budget();
  const bool had_token = budget.HeldByThisThread();
  if (had_token) {
    budget.Release();
    // The token is free now: let a task of this stage use it. (Without
    // this, a consumer that computes a prefetch's element itself and then
    // waits here left the token and a pool thread idle for the whole pass:
    // bench/results/data-vs-tfdata-2026-11-30.md.)
    TopUpLocked();
  }
  if (timeout) {
    changed_.wait_for(lock, *timeout);
  } else {
    changed_.wait(lock);
  }
  if (!had_token) return;
  // Never wait for a token while holding the stage lock: the holders may
  // need it to finish.
  lock.unlock();
  budget.Acquire();  // fails only when cancelled; the caller's loop throws
  lock.lock();
}

bool AsyncStage::CanHelpLocked() const {
  // Only pool workers help: the consumer keeps to its own work (running the
  // model) while elements it does not need yet are being computed. The
  // token the worker holds covers the extra element.
  return CanClaimLocked() && context_.pool()->CurrentWorkerIndex() >= 0 &&
         context_.budget().HeldByThisThread();
}

bool AsyncStage::QueuedTaskCanStartSoon() const {
  // A pool worker asking for an element may be the very thread the queued
  // task waits for, and a task without a free token could only take the
  // caller's: in both cases waiting just delays the element (by the whole
  // grace period, on every element of a nested pipeline on a small pool).
  return context_.pool()->CurrentWorkerIndex() < 0 && context_.budget().HasFreeToken();
}

std::optional<Element> AsyncStage::GetNext() {
  std::unique_lock lock(mutex_);
  bool gave_pool_a_chance = false;
  while (true) {
    context_.CheckCancelled();
    if (const int ready = ReadySlotLocked(); ready >= 0) {
      std::unique_ptr<Slot> slot = std::move(slots_[ready]);
      slots_.erase(slots_.begin() + ready);
      ++produced_;
      if (tuner_) tuner_->RecordElement(NowNs());
      TopUpLocked();
      lock.unlock();
      if (slot->error) RethrowAsPipelineError(config_.name, slot->index, slot->error);
      return std::move(slot->value);
    }
    if (end_of_input_ && slots_.empty() && claims_ == 0) return std::nullopt;
    TopUpLocked();
    if (claims_ > 0) {
      if (CanHelpLocked()) {
        // A pool worker (say, a prefetch's) with work to spare here computes
        // the next element itself rather than idling on its thread while a
        // queued task of this stage waits for a thread: on a small pool
        // that is what lets a map reach its parallelism.
        ClaimLocked();
        lock.unlock();
        ComputeOne();
        lock.lock();
        continue;
      }
      // Someone is computing an element this stage will deliver.
      WaitWithoutToken(lock, std::nullopt);
      continue;
    }
    if (scheduled_ > running_tasks_ && !gave_pool_a_chance && QueuedTaskCanStartSoon()) {
      gave_pool_a_chance = true;
      WaitWithoutToken(lock, kPoolStartGrace);
      continue;
    }
    // Nothing in flight: compute it here, under a budget token taken
    // before claiming (see the header).
    lock.unlock();
    {
      BudgetHold hold(context_.budget(), BudgetHold::Mode::kWait);
      lock.lock();
      if (!hold.held()) continue;  // cancelled: the loop's check throws
      if (!CanClaimLocked()) continue;
      ClaimLocked();
      lock.unlock();
      ComputeOne();
    }
    // The token is back: stages whose tasks found none resume (as at the
    // end of TaskMain).
    context_.TopUpStages();
    lock.lock();
    gave_pool_a_chance = false;
  }
}

PipelineStageDescription AsyncStage::Describe() const {
  std::lock_guard lock(mutex_);
  PipelineStageDescription d;
  d.name = config_.name;
  d.parallelism = ParallelismLocked();
  d.autotuned = tuner_.has_value();
  switch (config_.role) {
    case Role::kMap:
      d.max_parallelism = tuner_ ? tuner_->max() : config_.knob;
      d.buffer_size = CapacityLocked();  // everything it may hold
      break;
    case Role::kPrefetch:
      // One element at a time; AUTOTUNE tunes the buffer, which is
      // reported as tf.data means it (finished elements).
      d.max_parallelism = 1;
      d.buffer_size = KnobLocked();
      break;
  }
  d.produced = produced_;
  // claims_ - unslotted_ of the slots are being computed, the rest finished
  // (the invariants in async_stage.h).
  d.in_progress = claims_;
  d.buffered = static_cast<int>(slots_.size()) - (claims_ - unslotted_);
  return d;
}

void AsyncStage::TopUp() {
  std::lock_guard lock(mutex_);
  TopUpLocked();
}

void AsyncStage::WakeAll() {
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

}  // namespace loom::data::internal
