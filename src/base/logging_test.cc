#include "base/logging.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
