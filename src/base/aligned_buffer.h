// AlignedBuffer: zero-filled heap memory aligned to 64 bytes (one cache line
// and one AVX-512 register), owned by the object.
#pragma once

#include <cstddef>

namespace loom::base {

inline constexpr size_t kBufferAlignment = 64;

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

}  // namespace loom::base
