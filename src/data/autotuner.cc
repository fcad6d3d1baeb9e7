#include "data/autotuner.h"

#include <algorithm>

namespace loom::data::internal {

Autotuner::Autotuner(int max) : max_(std::max(max, 1)) { settled_ = max_ == 1; }

bool Autotuner::RecordElement(int64_t now_ns) {
  if (settled_) return false;
  if (window_start_ns_ < 0) {
    // The first element after a change only starts the window: the time
    // before it was spent ramping up, not at the new setting.
    window_start_ns_ = now_ns;
    window_elements_ = 0;
    return false;
  }
  ++window_elements_;
  const int64_t elapsed = now_ns - window_start_ns_;
  // A higher value needs a longer window: each of its workers should finish
  // a few elements, or the rate mostly measures the ramp.
  const int64_t min_elements = std::max<int64_t>(kMinWindowElements, 4 * int64_t{value_});
  if (window_elements_ < min_elements || elapsed < kMinWindowNs) return false;
  const double rate = static_cast<double>(window_elements_) * 1e9 / static_cast<double>(elapsed);
  window_start_ns_ = -1;
  return FinishWindow(rate);
}

bool Autotuner::FinishWindow(double rate) {
  history_.push_back({value_, rate});
  const int previous = value_;
  if (rate > best_rate_ * kMinGain) {
    best_rate_ = rate;
    best_value_ = value_;
    if (value_ < max_) {
      ++value_;
    } else {
      settled_ = true;
    }
  } else {
    value_ = best_value_;
    settled_ = true;
  }
  return value_ != previous;
}

}  // namespace loom::data::internal
