// TensorAllocator: where the storage of newly constructed tensors comes from.
//
// By default a Tensor allocates with aligned_alloc. A runtime that wants
// buffers recycled (the session's buffer pool) installs an allocator for the
// tensors constructed on one thread while it runs a node:
//
//   {
//     ScopedTensorAllocator use(run_allocator);  // this thread only
//     outputs = kernel(...);                     // Tensor(dtype, shape) → run_allocator
//   }
//
// A tensor's storage keeps its allocator alive (shared_ptr) and returns the
// memory to it when the last handle goes, on whichever thread that happens.
// Allocation still checks sizes first and zero-fills, as loom/tensor.h says.
#pragma once

#include <cstddef>
#include <memory>

namespace loom::detail {

class TensorAllocator {
 public:
  virtual ~TensorAllocator() = default;
  // At least `bytes` (> 0) bytes, 64-byte aligned, contents unspecified.
  // Throws loom::RuntimeError when memory is exhausted.
  virtual void* Allocate(size_t bytes) = 0;
  // Gives back what Allocate(bytes) returned. Thread-safe: may be called
  // from any thread, concurrently with Allocate.
  virtual void Deallocate(void* data, size_t bytes) noexcept = 0;
};

// Installs `allocator` as the calling thread's allocator until destroyed
// (then the previous one is back). Null means the default.
class ScopedTensorAllocator {
 public:
  explicit ScopedTensorAllocator(std::shared_ptr<TensorAllocator> allocator);
  ~ScopedTensorAllocator();
  ScopedTensorAllocator(const ScopedTensorAllocator&) = delete;
  ScopedTensorAllocator& operator=(const ScopedTensorAllocator&) = delete;

 private:
  std::shared_ptr<TensorAllocator> previous_;
};

// The calling thread's allocator, or null (the default).
const std::shared_ptr<TensorAllocator>& CurrentTensorAllocator();

}  // namespace loom::detail
