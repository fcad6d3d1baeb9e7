#include "tensor/tensor_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "loom/errors.h"
#include "loom/tensor.h"

namespace loom::detail {
namespace {

// Counts what passes through it and poisons fresh memory, so the test can
// see that Tensor zero-fills what an allocator hands out.
class CountingAllocator : public TensorAllocator {
 public:
  void* Allocate(size_t bytes) override {
    ++allocations;
    live_bytes += bytes;
    void* data = std::aligned_alloc(64, bytes);
    std::memset(data, 0xAB, bytes);
    return data;
  }
  void Deallocate(void* data, size_t bytes) noexcept override {
    ++deallocations;
    live_bytes -= bytes;
    std::free(data);
  }
  int allocations = 0;
  int deallocations = 0;
  size_t live_bytes = 0;
};

TEST(TensorAllocator, ScopedAllocatorServesTensorsAndGetsMemoryBack) {
  auto allocator = std::make_shared<CountingAllocator>();
  {
    Tensor outside(DType::kFloat32, {4});
    EXPECT_EQ(allocator->allocations, 0);
    Tensor inside;
    {
      ScopedTensorAllocator use(allocator);
      inside = Tensor(DType::kFloat32, {10});
    }
    EXPECT_EQ(allocator->allocations, 1);
    EXPECT_EQ(allocator->live_bytes, 64u);  // 40 bytes rounded to a cache line
    for (int i = 0; i < 10; ++i) EXPECT_EQ(inside.data<float>()[i], 0.0f);
    Tensor after(DType::kFloat32, {4});
    EXPECT_EQ(allocator->allocations, 1);  // the scope ended
  }
  EXPECT_EQ(allocator->deallocations, 1);
  EXPECT_EQ(allocator->live_bytes, 0u);
}

TEST(TensorAllocator, ScopesNestAndStayOnTheirThread) {
  auto outer = std::make_shared<CountingAllocator>();
  auto inner = std::make_shared<CountingAllocator>();
  ScopedTensorAllocator use_outer(outer);
  {
    ScopedTensorAllocator use_inner(inner);
    Tensor a(DType::kInt64, {3});
    std::thread([] { Tensor other_thread(DType::kInt64, {3}); }).join();
  }
  Tensor b(DType::kInt64, {3});
  EXPECT_EQ(inner->allocations, 1);
  EXPECT_EQ(outer->allocations, 1);
  EXPECT_EQ(CurrentTensorAllocator(), outer);
}

TEST(TensorAllocator, EmptyTensorsAllocateNothing) {
  auto allocator = std::make_shared<CountingAllocator>();
  ScopedTensorAllocator use(allocator);
  Tensor empty(DType::kFloat32, {0, 5});
  EXPECT_EQ(allocator->allocations, 0);
}

}  // namespace
}  // namespace loom::detail

namespace loom {
namespace {

TEST(Tensor, UninitializedHasTheShapeAndChecksSizesLikeTheConstructor) {
  Tensor t = Tensor::uninitialized(DType::kInt64, {3, 5});
  EXPECT_EQ(t.dtype(), DType::kInt64);
  EXPECT_EQ(t.shape(), Shape({3, 5}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  EXPECT_THROW(Tensor::uninitialized(DType::kFloat32, Shape({int64_t{1} << 40, 1 << 10})),
               InvalidArgumentError);
  EXPECT_EQ(Tensor::uninitialized(DType::kFloat32, {0}).raw_data(), nullptr);
}

}  // namespace
}  // namespace loom
