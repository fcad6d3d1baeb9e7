#include "tensor/storage.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "base/aligned_buffer.h"
#include "loom/errors.h"
#include "tensor/memory_cap.h"

namespace loom::detail {
namespace {

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
  const size_t rounded = base::AlignedSize(bytes);
  ReserveTensorBytes(rounded);  // the memory cap, before allocating
  try {
    allocator_ = current_allocator;
    if (allocator_) {
      data_ = allocator_->Allocate(rounded);
      if (data_ == nullptr) {
        throw RuntimeError("cannot allocate " + std::to_string(bytes) + " bytes");
      }
    } else {
      data_ = base::AllocateAligned(bytes);
    }
  } catch (...) {
    ReleaseTensorBytes(rounded);
    throw;
  }
  if (fill == kZeros) {
    std::memset(data_, 0, rounded);
  } else if (kPoisonUninitialized) {
    std::memset(data_, 0xFF, rounded);  // NaN as float, -1 as integers
  }
}

std::shared_ptr<Storage> Storage::Strings(size_t count) {
  auto storage = std::make_shared<Storage>(count * sizeof(std::string), kUninitialized);
  auto* strings = static_cast<std::string*>(storage->data_);
  for (size_t i = 0; i < count; ++i) new (strings + i) std::string();  // noexcept
  storage->strings_ = count;
  return storage;
}

Storage::Storage(void* data, size_t bytes, std::shared_ptr<void> owner)
    : data_(bytes == 0 ? nullptr : data),
      size_(bytes),
      external_owner_(std::move(owner)),
      external_(true) {}

Storage::~Storage() {
  if (data_ == nullptr || external_) return;
  auto* strings = static_cast<std::string*>(data_);
  for (size_t i = 0; i < strings_; ++i) strings[i].~basic_string();
  ReleaseTensorBytes(base::AlignedSize(size_));
  if (allocator_) {
    allocator_->Deallocate(data_, base::AlignedSize(size_));
  } else {
    std::free(data_);
  }
}

}  // namespace loom::detail
