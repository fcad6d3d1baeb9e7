// BufferPool: recycles tensor buffers across the nodes and runs of one
// session, so a steady-state run allocates nothing from the system and does
// not page-fault fresh memory in (glibc hands large blocks back to the kernel
// with munmap, so every run would fault its activations in again).
//
// RunAllocator is the per-run face of the pool: the TensorAllocator the
// executor installs while a node runs. It counts the bytes the run's tensors
// hold, and their peak, for RunStats::peak_bytes.
//
// Sizes are rounded up to a size class (four per power of two, so at most
// 25% waste). A request takes the most recently freed idle buffer whose class
// is at least its own and at most twice it, else a fresh one of its class:
// the buffer just freed is usually the input the previous node consumed, so
// it is still in cache, where a buffer of the exact class was last touched a
// whole run ago. MobileNet-V2's first depthwise layer of a stage (its output
// a new class) took 43-44 us against 31-32 for the same layer in the next
// block; taking the hot buffer made both 31-32 (bench/results/gemv-packed-
// 2026-12-04.md). The pool keeps at most `max_cached_bytes` idle; beyond
// that, freed buffers go back to the system.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "tensor/tensor_allocator.h"

namespace loom::runtime {

class BufferPool {
 public:
  explicit BufferPool(size_t max_cached_bytes);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // The class size a request of `bytes` is served with.
  static size_t SizeClass(size_t bytes);

  void* Allocate(size_t bytes);
  void Deallocate(void* data, size_t bytes) noexcept;

  size_t cached_bytes() const;
  // Allocations served from the cache / from the system, since creation.
  int64_t reused() const { return reused_.load(std::memory_order_relaxed); }
  int64_t fresh() const { return fresh_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mutex_;
  struct Idle {
    void* data;
    size_t size;     // its class
    uint64_t stamp;  // when it was freed: larger is more recent
  };
  std::map<size_t, std::vector<Idle>> free_;      // class → idle buffers, latest last
  std::unordered_map<void*, size_t> live_sizes_;  // handed out → its class
  uint64_t stamp_ = 0;
  size_t cached_bytes_ = 0;
  const size_t max_cached_bytes_;
  std::atomic<int64_t> reused_{0};
  std::atomic<int64_t> fresh_{0};
};

class RunAllocator : public detail::TensorAllocator {
 public:
  // `max_bytes` > 0: an allocation that would make the run's tensors hold
  // more throws RuntimeError (SessionOptions::max_memory_bytes).
  explicit RunAllocator(std::shared_ptr<BufferPool> pool, int64_t max_bytes = 0)
      : pool_(std::move(pool)), max_bytes_(max_bytes) {}

  void* Allocate(size_t bytes) override;
  void Deallocate(void* data, size_t bytes) noexcept override;

  int64_t live_bytes() const { return live_.load(std::memory_order_relaxed); }
  int64_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<BufferPool> pool_;
  const int64_t max_bytes_;
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> peak_{0};
};

}  // namespace loom::runtime
