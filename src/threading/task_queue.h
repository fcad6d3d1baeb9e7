// TaskQueue: one worker's run queue. The owner pops from the front (FIFO, so
// tasks scheduled in order start in order); thieves take from the back.
//
// A mutex per queue rather than a lock-free Chase-Lev deque: queues hold a
// handful of tasks, critical sections are a few pointer moves (~20 ns
// uncontended), and the mutex is easy to prove correct under TSan. Revisit if
// a profile shows contention.
#pragma once

#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

namespace loom::threading {

using Task = std::function<void()>;

class TaskQueue {
 public:
  void Push(Task task) {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }

  std::optional<Task> PopFront() {
    std::lock_guard lock(mutex_);
    if (tasks_.empty()) return std::nullopt;
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    return task;
  }

  std::optional<Task> StealBack() {
    std::lock_guard lock(mutex_);
    if (tasks_.empty()) return std::nullopt;
    Task task = std::move(tasks_.back());
    tasks_.pop_back();
    return task;
  }

 private:
  std::mutex mutex_;
  std::deque<Task> tasks_;
};

}  // namespace loom::threading
