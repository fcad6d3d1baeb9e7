#include "base/logging.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loom/warnings.h"

namespace loom::base {
namespace {

TEST(Logging, WarningReachesInstalledSinkWithPrefix) {
  std::vector<std::string> lines;
  LogSink previous = SetLogSinkForTesting([&](std::string_view line) { lines.emplace_back(line); });
  LogWarning("disk on fire");
  SetLogSinkForTesting(std::move(previous));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "loom: warning: disk on fire");
}

}  // namespace
}  // namespace loom::base

namespace loom::base {
namespace {

TEST(WarningCaptureTest, CollectsThisThreadsWarningsInsteadOfTheSink) {
  std::vector<std::string> sink_lines;
  LogSink previous =
      SetLogSinkForTesting([&](std::string_view line) { sink_lines.emplace_back(line); });
  {
    WarningCapture capture;
    LogWarning("first");
    LogWarning("second");
    EXPECT_EQ(capture.take(), (std::vector<std::string>{"first", "second"}));
    EXPECT_TRUE(capture.take().empty());
    LogWarning("third");
    EXPECT_EQ(capture.take(), std::vector<std::string>{"third"});
  }
  LogWarning("after");
  SetLogSinkForTesting(std::move(previous));
  EXPECT_EQ(sink_lines, std::vector<std::string>{"loom: warning: after"});
}

TEST(WarningCaptureTest, NestedCapturesCollectInTheInnermostOnly) {
  WarningCapture outer;
  LogWarning("outer 1");
  {
    WarningCapture inner;
    LogWarning("inner");
    EXPECT_EQ(inner.take(), std::vector<std::string>{"inner"});
  }
  LogWarning("outer 2");
  EXPECT_EQ(outer.take(), (std::vector<std::string>{"outer 1", "outer 2"}));
}

TEST(WarningCaptureTest, OtherThreadsWarningsAreNotCaptured) {
  std::vector<std::string> sink_lines;
  std::mutex mutex;
  LogSink previous = SetLogSinkForTesting([&](std::string_view line) {
    std::lock_guard lock(mutex);
    sink_lines.emplace_back(line);
  });
  WarningCapture capture;
  std::thread([] { LogWarning("from another thread"); }).join();  // a user thread
  SetLogSinkForTesting(std::move(previous));
  EXPECT_TRUE(capture.take().empty());
  EXPECT_EQ(sink_lines, std::vector<std::string>{"loom: warning: from another thread"});
}

}  // namespace
}  // namespace loom::base
