#include "base/prefetch.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace loom::base {
namespace {

// A prefetch only asks for lines: the data stays as it was, whatever the
// alignment and length (including none, and ranges ending mid-line).
TEST(PrefetchForWrite, LeavesTheDataAsItWas) {
  std::vector<unsigned char> data(1000);
  std::iota(data.begin(), data.end(), 0);
  const std::vector<unsigned char> before = data;
  for (size_t offset : {0, 1, 63, 64, 65, 500}) {
    for (size_t bytes : {0, 1, 63, 64, 65, 300}) {
      if (offset + bytes > data.size()) continue;
      PrefetchForWrite(data.data() + offset, bytes);
    }
  }
  EXPECT_EQ(data, before);
}

}  // namespace
}  // namespace loom::base
