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
  for (const Idle& idle : idle_) std::free(idle.data);
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
    // The most recently freed buffer that fits within twice the class.
    for (size_t i = idle_.size(); i-- > 0;) {
      const Idle candidate = idle_[i];
      if (candidate.size < size || candidate.size > 2 * size) continue;
      idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(i));
      cached_bytes_ -= candidate.size;
      live_sizes_[candidate.data] = candidate.size;
      reused_.fetch_add(1, std::memory_order_relaxed);
      return candidate.data;
    }
  }
  void* data = AllocateFromSystem(size);
  fresh_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  live_sizes_[data] = size;
  return data;
}

void BufferPool::Deallocate(void* data, size_t /*bytes*/) noexcept {
  std::lock_guard lock(mutex_);
  const auto it = live_sizes_.find(data);
  if (it == live_sizes_.end()) return;  // not ours: nothing to free safely
  const size_t size = it->second;
  live_sizes_.erase(it);
  if (cached_bytes_ + size <= max_cached_bytes_) {
    idle_.push_back({data, size});
    cached_bytes_ += size;
    return;
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
