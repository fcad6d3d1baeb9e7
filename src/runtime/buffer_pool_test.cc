#include "runtime/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "loom/tensor.h"
#include "tensor/tensor_allocator.h"

namespace loom::runtime {
namespace {

TEST(BufferPool, SizeClassesCoverTheRequestWithAtMostAQuarterWaste) {
  for (size_t bytes :
       {size_t{1}, size_t{64}, size_t{65}, size_t{255}, size_t{256}, size_t{257}, size_t{1000},
        size_t{4096}, size_t{5000}, size_t{1} << 20, (size_t{1} << 20) + 1, size_t{123456789}}) {
    const size_t size = BufferPool::SizeClass(bytes);
    EXPECT_GE(size, bytes);
    EXPECT_EQ(size % 64, 0u) << bytes;
    if (bytes > 256) {
      EXPECT_LE(size, bytes + bytes / 4) << bytes;
    }
  }
  EXPECT_EQ(BufferPool::SizeClass(1 << 20), size_t{1} << 20);
  EXPECT_EQ(BufferPool::SizeClass((1 << 20) + 1), (size_t{1} << 20) + (size_t{1} << 18));
}

TEST(BufferPool, FreedBuffersServeTheNextRequestOfTheirClass) {
  BufferPool pool(size_t{1} << 30);
  void* first = pool.Allocate(1000);
  pool.Deallocate(first, 1000);
  EXPECT_EQ(pool.cached_bytes(), BufferPool::SizeClass(1000));
  void* second = pool.Allocate(1010);  // same class
  EXPECT_EQ(second, first);
  EXPECT_EQ(pool.reused(), 1);
  EXPECT_EQ(pool.fresh(), 1);
  void* other = pool.Allocate(100000);  // another class: fresh
  EXPECT_NE(other, first);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(other) % 64, 0u);
  pool.Deallocate(second, 1010);
  pool.Deallocate(other, 100000);
}

TEST(BufferPool, TakesTheMostRecentlyFreedBufferWithinTwiceTheClass) {
  BufferPool pool(size_t{1} << 30);
  void* small = pool.Allocate(16384);
  void* larger = pool.Allocate(20000);
  void* huge = pool.Allocate(100000);
  pool.Deallocate(small, 16384);
  pool.Deallocate(larger, 20000);
  pool.Deallocate(huge, 100000);
  // 16 KiB: `huge` is more recent but over twice the class; `larger` is next.
  void* got = pool.Allocate(16384);
  EXPECT_EQ(got, larger);
  EXPECT_EQ(pool.cached_bytes(), BufferPool::SizeClass(16384) + BufferPool::SizeClass(100000));
  // Back with its own class counted, whatever was asked for.
  pool.Deallocate(got, 16384);
  EXPECT_EQ(pool.cached_bytes(), BufferPool::SizeClass(16384) + BufferPool::SizeClass(20000) +
                                     BufferPool::SizeClass(100000));
  // Nothing idle is big enough: a fresh buffer.
  void* bigger = pool.Allocate(300000);
  EXPECT_NE(bigger, small);
  EXPECT_NE(bigger, larger);
  EXPECT_NE(bigger, huge);
  EXPECT_EQ(pool.fresh(), 4);
  EXPECT_EQ(pool.reused(), 1);
  pool.Deallocate(bigger, 300000);
}

TEST(BufferPool, KeepsNoMoreThanItsCapIdle) {
  BufferPool pool(4096);
  void* a = pool.Allocate(4096);
  void* b = pool.Allocate(4096);
  pool.Deallocate(a, 4096);
  pool.Deallocate(b, 4096);  // over the cap: back to the system
  EXPECT_EQ(pool.cached_bytes(), 4096u);
}

TEST(RunAllocator, CountsLiveAndPeakBytesOfTensorsMadeInItsScope) {
  auto pool = std::make_shared<BufferPool>(size_t{1} << 30);
  auto run = std::make_shared<RunAllocator>(pool);
  {
    detail::ScopedTensorAllocator use(run);
    Tensor a(DType::kFloat32, {1024});  // 4 KiB
    {
      Tensor b(DType::kFloat32, {2048});  // 8 KiB
      EXPECT_EQ(run->live_bytes(), 12288);
    }
    Tensor c(DType::kFloat32, {1024});
    EXPECT_EQ(run->live_bytes(), 8192);  // the bytes asked for, not the buffer's
    EXPECT_EQ(pool->reused(), 1);        // b's 8 KiB buffer: at most twice c's class
  }
  EXPECT_EQ(run->live_bytes(), 0);
  EXPECT_EQ(run->peak_bytes(), 12288);
}

}  // namespace
}  // namespace loom::runtime
