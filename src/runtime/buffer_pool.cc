#include "runtime/buffer_pool.h"

#include <bit>
#include <cstdlib>
#include <string>

#include "loom/errors.h"

namespace loom::runtime {
namespace {

constexpr size_t kAlignment = 64;  // a cache line; what Tensor promises

void* AllocateFromSystem(size_t bytes) {
  void* data = std::aligned_alloc(kAlignment, bytes);
  if (data == nullptr) throw RuntimeError("cannot allocate " + std::to_string(bytes) + " bytes");
  return data;
}

}  // namespace

BufferPool::BufferPool(size_t max_cached_bytes) : max_cached_bytes_(max_cached_bytes) {}

BufferPool::~BufferPool() {
  for (auto& [size, buffers] : free_) {
    for (void* buffer : buffers) std::free(buffer);
  }
}

size_t BufferPool::SizeClass(size_t bytes) {
  if (bytes <= 256) return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  // Four classes per power of two: the step is a quarter of the largest
  // power of two not above `bytes`, itself a multiple of 64 from 256 up.
  const size_t step = std::bit_floor(bytes) / 4;
  return (bytes + step - 1) / step * step;
}

void* BufferPool::Allocate(size_t bytes) {
  const size_t size = SizeClass(bytes);
  {
    std::lock_guard lock(mutex_);
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      void* buffer = it->second.back();
      it->second.pop_back();
      cached_bytes_ -= size;
      reused_.fetch_add(1, std::memory_order_relaxed);
      return buffer;
    }
  }
  fresh_.fetch_add(1, std::memory_order_relaxed);
  return AllocateFromSystem(size);
}

void BufferPool::Deallocate(void* data, size_t bytes) noexcept {
  const size_t size = SizeClass(bytes);
  {
    std::lock_guard lock(mutex_);
    if (cached_bytes_ + size <= max_cached_bytes_) {
      free_[size].push_back(data);
      cached_bytes_ += size;
      return;
    }
  }
  std::free(data);
}

size_t BufferPool::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_bytes_;
}

void* RunAllocator::Allocate(size_t bytes) {
  const auto amount = static_cast<int64_t>(bytes);
  const int64_t live = live_.fetch_add(amount, std::memory_order_relaxed) + amount;
  if (max_bytes_ > 0 && live > max_bytes_) {
    live_.fetch_sub(amount, std::memory_order_relaxed);
    throw RuntimeError("cannot allocate a tensor of " + std::to_string(bytes) +
                       " bytes: the run's tensors would hold " + std::to_string(live) +
                       " bytes, above the session's max_memory_bytes of " +
                       std::to_string(max_bytes_));
  }
  void* data;
  try {
    data = pool_->Allocate(bytes);
  } catch (...) {
    live_.fetch_sub(amount, std::memory_order_relaxed);
    throw;
  }
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (live > peak && !peak_.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
  return data;
}

void RunAllocator::Deallocate(void* data, size_t bytes) noexcept {
  live_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  pool_->Deallocate(data, bytes);
}

}  // namespace loom::runtime
