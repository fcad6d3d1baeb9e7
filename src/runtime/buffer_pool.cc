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
    for (const Idle& idle : buffers) std::free(idle.data);
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
    // Among the classes in [size, 2 * size] (five at most: four per power
    // of two), the buffer freed last; each class's list ends with its latest.
    std::vector<Idle>* best = nullptr;
    for (auto it = free_.lower_bound(size); it != free_.end() && it->first <= 2 * size; ++it) {
      if (!it->second.empty() &&
          (best == nullptr || it->second.back().stamp > best->back().stamp)) {
        best = &it->second;
      }
    }
    if (best != nullptr) {
      const Idle idle = best->back();
      live_sizes_[idle.data] = idle.size;  // may throw: before taking it
      best->pop_back();
      cached_bytes_ -= idle.size;
      reused_.fetch_add(1, std::memory_order_relaxed);
      return idle.data;
    }
  }
  void* data = AllocateFromSystem(size);
  fresh_.fetch_add(1, std::memory_order_relaxed);
  try {
    std::lock_guard lock(mutex_);
    live_sizes_[data] = size;
  } catch (...) {
    std::free(data);
    throw;
  }
  return data;
}

void BufferPool::Deallocate(void* data, size_t /*bytes*/) noexcept {
  std::lock_guard lock(mutex_);
  const auto it = live_sizes_.find(data);
  if (it == live_sizes_.end()) return;  // not from this pool: not ours to free
  const size_t size = it->second;
  live_sizes_.erase(it);
  if (cached_bytes_ + size <= max_cached_bytes_) {
    try {
      free_[size].push_back({data, size, ++stamp_});
      cached_bytes_ += size;
      return;
    } catch (...) {  // no memory for the list entry: give the buffer back
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
