#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace loom::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

}  // namespace

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(std::string label, int64_t total, bool enabled)
    : label_(std::move(label)),
      total_(std::max<int64_t>(total, 1)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - kRedrawInterval) {}

ProgressBar::~ProgressBar() { Finish(); }

std::string ProgressBar::Render(const std::string& label, int64_t done, int64_t total,
                                double elapsed_s) {
  total = std::max<int64_t>(total, 1);
  done = std::clamp<int64_t>(done, 0, total);
  const int filled = static_cast<int>(done * kBarWidth / total);
  std::string bar = label + "  [" + std::string(filled, '#') +
                    std::string(kBarWidth - filled, '.') + "]  " + std::to_string(done) + "/" +
                    std::to_string(total);
  if (done > 0 && done < total) {
    char left[48];
    const double remaining =
        elapsed_s / static_cast<double>(done) * static_cast<double>(total - done);
    std::snprintf(left, sizeof(left), "  %.1f s left", remaining);
    bar += left;
  }
  return bar;
}

void ProgressBar::Update(int64_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedrawInterval && done < total_) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // \r and "erase to end of line" (ESC [ K) redraw in place.
  std::fprintf(stderr, "\r%s\033[K", Render(label_, done, total_, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Update(int64_t done, int64_t total) {
  total_ = std::max<int64_t>(total, 1);
  Update(done);
}

void ProgressBar::Finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace loom::cli
