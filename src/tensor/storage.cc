#include "tensor/storage.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "loom/errors.h"

namespace loom::detail {
namespace {

// 64 bytes: one cache line and one AVX-512 register.
constexpr size_t kAlignment = 64;

thread_local std::shared_ptr<TensorAllocator> current_allocator;

#ifdef LOOM_POISON_UNINITIALIZED
constexpr bool kPoisonUninitialized = true;
#else
constexpr bool kPoisonUninitialized = false;
#endif

}  // namespace

ScopedTensorAllocator::ScopedTensorAllocator(std::shared_ptr<TensorAllocator> allocator)
    : previous_(std::move(current_allocator)) {
  current_allocator = std::move(allocator);
}

ScopedTensorAllocator::~ScopedTensorAllocator() { current_allocator = std::move(previous_); }

const std::shared_ptr<TensorAllocator>& CurrentTensorAllocator() { return current_allocator; }

Storage::Storage(size_t bytes, Fill fill) : size_(bytes) {
  if (bytes == 0) return;
  // Rounded up to whole cache lines: aligned_alloc wants a multiple of the
  // alignment, and kernels may then touch the last line with full vectors.
  // The caller checked `bytes` is far below SIZE_MAX.
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  allocator_ = current_allocator;
  data_ = allocator_ ? allocator_->Allocate(rounded) : std::aligned_alloc(kAlignment, rounded);
  if (data_ == nullptr) throw RuntimeError("cannot allocate " + std::to_string(bytes) + " bytes");
  if (fill == kZeros) {
    std::memset(data_, 0, rounded);
  } else if (kPoisonUninitialized) {
    std::memset(data_, 0xFF, rounded);  // NaN as float, -1 as integers
  }
}

Storage::Storage(void* data, size_t bytes, std::shared_ptr<void> owner)
    : data_(bytes == 0 ? nullptr : data),
      size_(bytes),
      external_owner_(std::move(owner)),
      external_(true) {}

Storage::~Storage() {
  if (data_ == nullptr || external_) return;
  if (allocator_) {
    allocator_->Deallocate(data_, (size_ + kAlignment - 1) / kAlignment * kAlignment);
  } else {
    std::free(data_);
  }
}

}  // namespace loom::detail
