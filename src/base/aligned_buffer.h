// AlignedBuffer: zero-filled heap memory aligned to 64 bytes (one cache line
// and one AVX-512 register), owned by the object. GrowOnlyBuffer: scratch
// space that is only ever grown, for the kernels' per-thread buffers.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace loom::base {

inline constexpr size_t kBufferAlignment = 64;

// `bytes` rounded up to whole 64-byte lines: aligned_alloc wants a multiple
// of the alignment, and kernels may touch the last line with full vectors.
// The caller checked that `bytes` is far below SIZE_MAX.
inline size_t AlignedSize(size_t bytes) {
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

// AlignedSize(bytes) bytes from aligned_alloc, uninitialized; free with
// std::free. Throws loom::RuntimeError naming `bytes` if the allocation
// fails. AlignedBuffer and the tensors' Storage both allocate here.
void* AllocateAligned(size_t bytes);

class AlignedBuffer {
 public:
  // Throws loom::RuntimeError naming the size if the allocation fails. A
  // size of 0 allocates nothing (data() is null).
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Scratch floats kept across calls and only ever grown: a fresh zero-filled
// buffer per call costs page faults (GEMM packing, im2col, depthwise
// phases, the NCHWc padded input each keep one per thread, as
// `thread_local GrowOnlyBuffer`). Growing frees the old buffer first (its
// contents are not kept), so the peak is one buffer, not two.
class GrowOnlyBuffer {
 public:
  // At least `count` floats, 64-byte aligned; valid until the next call
  // that grows the buffer. Throws as AlignedBuffer does.
  float* Floats(size_t count);

 private:
  std::unique_ptr<AlignedBuffer> buffer_;
};

// A std::allocator that places every allocation on a 64-byte line, for
// vectors read with full AVX-512 loads (packed weights): operator new gives
// 16 bytes, and a glibc mmap-backed block starts 16 bytes past a page, so
// every 64-byte vector of it spanned two cache lines. Throws as AlignedBuffer
// does.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  // Implicit, as std::allocator's: containers rebind the allocator.
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>& /*other*/) {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) { return static_cast<T*>(AllocateAligned(n * sizeof(T))); }
  void deallocate(T* p, size_t /*n*/) { std::free(p); }
  friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
};

}  // namespace loom::base
