// The storage behind loom::Tensor (declared opaque in the public header):
// zero-filled (unless asked not to), 64-byte aligned bytes from the thread's TensorAllocator
// (tensor_allocator.h), or from aligned_alloc when none is installed; or memory
// someone else owns (Tensor::from_external), kept alive by a shared owner.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "tensor/tensor_allocator.h"

namespace loom::detail {

class Storage {
 public:
  enum Fill { kZeros, kUninitialized };

  // Throws loom::RuntimeError naming the size if the allocation fails. A size
  // of 0 allocates nothing (data() is null). kUninitialized skips the
  // zero-fill (sanitizer builds, LOOM_POISON_UNINITIALIZED, fill NaN bytes).
  explicit Storage(size_t bytes, Fill fill = kZeros);
  // Storage for `count` std::string objects (a kString tensor), each
  // constructed empty here and destroyed with the storage.
  static std::shared_ptr<Storage> Strings(size_t count);
  // Borrows `bytes` at `data`; `owner` is released (never freed here) when
  // the storage dies.
  Storage(void* data, size_t bytes, std::shared_ptr<void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<TensorAllocator> allocator_;  // null: aligned_alloc
  std::shared_ptr<void> external_owner_;        // set: borrowed memory
  bool external_ = false;
  size_t strings_ = 0;  // std::string objects constructed in data_
};

}  // namespace loom::detail
