#include "base/aligned_buffer.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "loom/errors.h"

namespace loom::base {

AlignedBuffer::AlignedBuffer(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  // aligned_alloc wants a multiple of the alignment; the caller checked that
  // `bytes` is far from SIZE_MAX, so rounding up cannot overflow.
  const size_t rounded = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  data_ = std::aligned_alloc(kBufferAlignment, rounded);
  if (data_ == nullptr) {
    throw RuntimeError("cannot allocate " + std::to_string(bytes) + " bytes");
  }
  std::memset(data_, 0, rounded);
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
