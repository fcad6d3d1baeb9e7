#include "base/aligned_buffer.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "loom/errors.h"

namespace loom::base {

void* AllocateAligned(size_t bytes) {
  void* data = std::aligned_alloc(kBufferAlignment, AlignedSize(bytes));
  if (data == nullptr) throw RuntimeError("cannot allocate " + std::to_string(bytes) + " bytes");
  return data;
}

AlignedBuffer::AlignedBuffer(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  data_ = AllocateAligned(bytes);
  std::memset(data_, 0, AlignedSize(bytes));
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

float* GrowOnlyBuffer::Floats(size_t count) {
  if (!buffer_ || buffer_->size() < count * sizeof(float)) {
    buffer_.reset();
    buffer_ = std::make_unique<AlignedBuffer>(count * sizeof(float));
  }
  return static_cast<float*>(buffer_->data());
}

}  // namespace loom::base
