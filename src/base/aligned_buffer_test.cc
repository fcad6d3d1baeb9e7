#include "base/aligned_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace loom::base {
namespace {

bool OnALine(const void* p) { return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0; }

TEST(AlignedAllocator, EveryVectorStartsOnACacheLine) {
  // Small blocks come from the heap (16-byte aligned by operator new), large
  // ones from mmap (16 bytes past a page under glibc): both must be moved.
  for (size_t n : {1, 3, 100, 1000, 40'000, 1'000'000}) {
    std::vector<float, AlignedAllocator<float>> v(n, 1.0f);
    EXPECT_TRUE(OnALine(v.data())) << n << " floats";
    v.resize(3 * n + 5, 2.0f);  // a reallocation keeps the contents and the alignment
    EXPECT_TRUE(OnALine(v.data())) << 3 * n + 5 << " floats";
    EXPECT_EQ(v[n - 1], 1.0f);
    EXPECT_EQ(v[3 * n + 4], 2.0f);
  }
}

TEST(AlignedBuffer, IsAlignedAndZeroFilled) {
  AlignedBuffer buffer(1000);
  ASSERT_TRUE(OnALine(buffer.data()));
  const auto* bytes = static_cast<const unsigned char*>(buffer.data());
  for (size_t i = 0; i < 1000; ++i) ASSERT_EQ(bytes[i], 0) << i;
}

}  // namespace
}  // namespace loom::base
