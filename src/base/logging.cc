#include "base/logging.h"

#include <cstdio>
#include <mutex>
#include <string>

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
