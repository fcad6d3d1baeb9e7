// A one-line progress bar on stderr for long runs:
//
//   tune  [##########..........]  12/24  3.1 s left
//
// Only on a terminal: piped or redirected output gets no control characters.
// The caller decides whether the work is long enough to deserve a bar.
//
// Thread-compatible: one thread updates a bar.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace loom::cli {

// Whether stderr is a terminal (isatty).
bool StderrIsTerminal();

class ProgressBar {
 public:
  // Draws nothing at all unless `enabled`.
  ProgressBar(std::string label, int64_t total, bool enabled);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Records that `done` of `total` units are finished; redraws at most every
  // 100 ms (a terminal write per run would cost more than short runs).
  void Update(int64_t done);
  // The same, when the total becomes known (or changes) on the way.
  void Update(int64_t done, int64_t total);
  // Erases the bar, leaving the cursor at the start of an empty line.
  void Finish();

  // The bar's text for `done` of `total` after `elapsed_s` seconds (the
  // remaining time extrapolated linearly), without control characters.
  static std::string Render(const std::string& label, int64_t done, int64_t total,
                            double elapsed_s);

 private:
  std::string label_;
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace loom::cli
