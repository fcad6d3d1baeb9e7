// Autotuner: the hill climber behind kAutotune.
//
// It tunes one knob (a parallel map's parallelism, a prefetch's buffer),
// starting at 1: after each measurement window it compares the stage's
// output rate with the best rate seen so far; while raising the knob
// improves throughput by more than kMinGain it raises it again (never above
// `max`), and at the first step that does not pay it goes back to the best
// value and settles. So a pipeline whose consumer is the bottleneck stays
// at 1 and uses one thread, and one limited by the map climbs to the pool.
//
// Not thread-safe: the stage calls it under its own lock. Time is passed in
// so tests can drive it with a fake clock.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::data::internal {

class Autotuner {
 public:
  // A window needs this many elements and this much time before it counts.
  static constexpr int kMinWindowElements = 8;
  static constexpr int64_t kMinWindowNs = 20'000'000;
  // A higher value is kept only if it beats the best rate by this factor.
  static constexpr double kMinGain = 1.05;

  explicit Autotuner(int max);

  int value() const { return value_; }
  int max() const { return max_; }
  bool settled() const { return settled_; }

  // One element left the stage at `now_ns` (any monotonic clock). Returns
  // true when value() changed.
  bool RecordElement(int64_t now_ns);

  struct Step {
    int value;
    double elements_per_second;
  };
  // Every finished window, in order: what was tried and what it gave.
  const std::vector<Step>& history() const { return history_; }

 private:
  bool FinishWindow(double rate);

  int max_;
  int value_ = 1;
  int best_value_ = 1;
  double best_rate_ = 0;
  bool settled_ = false;
  int64_t window_start_ns_ = -1;
  int64_t window_elements_ = 0;
  std::vector<Step> history_;
};

}  // namespace loom::data::internal
