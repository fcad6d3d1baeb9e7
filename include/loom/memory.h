// The process's memory cap for tensors.
#pragma once

#include <cstdint>
#include <string>

namespace loom {

// The memory cap: the most bytes the live tensors of this process may hold
// together. An allocation that would go above it fails with
// loom::RuntimeError before a byte is allocated (never an out-of-memory
// kill). LOOM_MAX_MEMORY sets it: bytes, or a number with a binary suffix
// K, M, G or T ("512M", "8GiB"); unset or 0 = automatic: the tightest
// cgroup memory limit, else the physical memory. Read once, at the first
// allocation; an invalid value makes every allocation fail with an
// InvalidArgumentError naming the variable. Memory a tensor borrows
// (Tensor::from_external) is not counted; a session's idle buffer cache is
// not either. A session can set a tighter cap on each of its runs
// (SessionOptions::max_memory_bytes).
struct MemoryCap {
  int64_t bytes = 0;
  std::string source;  // "LOOM_MAX_MEMORY=8G", "cgroup limit <file>", "physical memory ..."
};
MemoryCap memory_cap();
// Bytes the live tensors of this process hold now (what the cap bounds).
int64_t tensor_bytes_in_use();

}  // namespace loom
