#include "base/logging.h"

#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include "loom/warnings.h"

namespace loom {
namespace {
// The innermost live WarningCapture's list on this thread.
thread_local std::vector<std::string>* thread_capture = nullptr;
}  // namespace

WarningCapture::WarningCapture() : previous_(thread_capture) { thread_capture = &warnings_; }

WarningCapture::~WarningCapture() { thread_capture = previous_; }

std::vector<std::string> WarningCapture::take() { return std::exchange(warnings_, {}); }

}  // namespace loom

namespace loom::base {
namespace {

std::mutex& SinkMutex() {
  static std::mutex mutex;
  return mutex;
}

LogSink& Sink() {
  static LogSink sink;
  return sink;
}

}  // namespace

void LogWarning(std::string_view message) {
  if (thread_capture != nullptr) {
    thread_capture->emplace_back(message);
    return;
  }
  std::string line = "loom: warning: ";
  line.append(message);
  std::lock_guard lock(SinkMutex());
  if (Sink()) {
    Sink()(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

LogSink SetLogSinkForTesting(LogSink sink) {
  std::lock_guard lock(SinkMutex());
  LogSink previous = std::move(Sink());
  Sink() = std::move(sink);
  return previous;
}

}  // namespace loom::base
