// AsyncStage: parallel map and prefetch. Elements are computed ahead on the
// data pool and handed to the consumer in input order (or, for a
// non-deterministic map, in order of completion).
//
// How work is claimed (what keeps it from deadlocking on a pool of any
// size, down to one thread shared by nested stages):
//  - Pool tasks take a CPU-budget token, claim one element (pull its input
//    under input_mutex_, then compute it), and loop while there is room;
//    a task that finds no token or no room exits, so no pool thread ever
//    sits idle-blocked inside a stage. A task that computed something tops
//    up every stage of the pipeline when it exits (its token is free now),
//    so a stage whose task found no token resumes without waiting for the
//    consumer. Every task, as it leaves, also tops up its own stage (room
//    may have come, or a token come back, since it found none); a top-up
//    adds only tasks that could claim and have a free token, so tasks
//    cannot keep rescheduling one another without doing work.
//  - A thread that needs an element (the consumer, or a downstream stage's
//    worker pulling its input) waits only while some thread is actively
//    computing for this stage. When nothing is in flight it computes the
//    element itself (after a short grace period for a pool task that was
//    queued but has not started). Waiting therefore always points at a
//    running thread further upstream, and upstream ends at a source. The
//    grace period is skipped when the waiting thread is itself a pool
//    worker or no budget token is free: the task could not start anyway.
//  - A pool worker that needs an element from a stage with room for more
//    work computes one itself instead of waiting (its pool thread would
//    otherwise idle while the stage's own tasks queue for a thread).
//  - Only threads holding a token compute. A token holder that waits here
//    gives its token back for the wait, so every token belongs to a
//    computing thread and CPU-budget waits cannot form a cycle either.
// Memory: at most Capacity() elements exist in the stage at once (being
// computed plus finished), i.e. the parallelism of a map or the buffer of a
// prefetch.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "data/autotuner.h"
#include "data/pipeline.h"

namespace loom::data::internal {

class AsyncStage final : public IteratorNode, public AsyncStageBase {
 public:
  // The two roles differ only in what the knob means:
  //   kMap:      knob = parallelism (elements computed at once); the stage
  //              holds up to 2 x knob elements (computing + finished).
  //   kPrefetch: knob = buffer (finished elements, tf.data's meaning); one
  //              element is computed at a time, on top of the buffer.
  enum class Role { kMap, kPrefetch };

  struct Config {
    std::string name;  // "map#2"
    Role role = Role::kMap;
    Dataset::MapFn fn;  // null for prefetch
    int knob = 1;       // see Role; kAutotune
    bool deterministic = true;
    int autotune_max = 1;  // the most kAutotune may choose
  };

  AsyncStage(PipelineContext& context, std::unique_ptr<IteratorNode> input, Config config);
  // Stops claiming, drops queued pool tasks and waits for running ones.
  // The context must be cancelled first if a task might be waiting inside
  // an upstream stage.
  ~AsyncStage() override;

  std::optional<Element> GetNext() override;
  PipelineStageDescription Describe() const override;
  void WakeAll() override;
  void TopUp() override;

 private:
  struct Slot {
    int64_t index = 0;
    bool done = false;
    // When it finished, among this stage's elements (1, 2, ...): with
    // deterministic off the consumer takes the earliest finished, so an
    // element the consumer computed itself does not go ahead of ones the
    // pool finished while it worked.
    uint64_t finished = 0;
    std::optional<Element> value;
    std::exception_ptr error;
  };
  // Lets queued pool tasks find out that the stage is gone without touching
  // it.
  struct Gate {
    std::mutex mutex;
    AsyncStage* stage = nullptr;
  };

  // The knob's current value (the autotuner's when it tunes).
  int KnobLocked() const;
  // Elements computed at once: the knob for a map, 1 for a prefetch.
  int ParallelismLocked() const;
  // Elements the stage may hold, computing and finished.
  int CapacityLocked() const;
  bool CanClaimLocked() const;
  // Index into slots_ of an element ready for the consumer, or -1.
  int ReadySlotLocked() const;
  void TopUpLocked();
  // Whether the calling thread should compute an element instead of
  // waiting for one (see .cc).
  bool CanHelpLocked() const;
  // Whether waiting a moment for a queued pool task can pay (see .cc).
  bool QueuedTaskCanStartSoon() const;
  // Waits for a change (up to `timeout`), giving back the caller's CPU
  // budget token for the wait.
  void WaitWithoutToken(std::unique_lock<std::mutex>& lock,
                        std::optional<std::chrono::milliseconds> timeout);
  // Reserves one element's work for the calling thread (CanClaimLocked()
  // must hold); ComputeOne then does it.
  void ClaimLocked();
  // Computes one claimed element.
  void ComputeOne();
  void TaskMain();

  PipelineContext& context_;
  std::unique_ptr<IteratorNode> input_;
  const Config config_;
  std::optional<Autotuner> tuner_;
  std::shared_ptr<Gate> gate_;

  // Serializes pulls from input_, so elements enter in order.
  std::mutex input_mutex_;
  int64_t next_index_ = 0;       // guarded by input_mutex_
  uint64_t finished_count_ = 0;  // Slot::finished of the last element done; guarded by mutex_

  // Guarded by mutex_. Invariants (whenever mutex_ is free):
  //  - 0 <= unslotted_ <= claims_: a claim (ClaimLocked) counts in both
  //    until ComputeOne has pulled its input; then it has a slot (or, at the
  //    end of the input, is dropped) and leaves unslotted_; it leaves
  //    claims_ when its slot is done. So claims_ - unslotted_ slots are
  //    being computed and the rest of slots_ are finished.
  //  - A claim is made only while claims_ < ParallelismLocked() and
  //    slots_.size() + unslotted_ < CapacityLocked() (CanClaimLocked); the
  //    autotuner may lower both later, so they bound new claims, not the
  //    counts already there.
  //  - 0 <= running_tasks_ <= scheduled_: a pool task counts in scheduled_
  //    from Schedule until it exits, in running_tasks_ from its start; the
  //    destructor waits for running_tasks_ == 0 (queued ones find the gate
  //    closed and never touch the stage).
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Slot>> slots_;  // input order
  int claims_ = 0;                           // elements being pulled or computed
  int unslotted_ = 0;                        // claims still pulling their input
  bool end_of_input_ = false;
  int scheduled_ = 0;      // pool tasks queued or running
  int running_tasks_ = 0;  // pool tasks that have started
  bool closing_ = false;
  int64_t produced_ = 0;
};

}  // namespace loom::data::internal
