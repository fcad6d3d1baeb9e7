// PrefetchForWrite: asks for ownership of the cache lines a loop is about to
// store to, ahead of the stores.
//
// Why: at intra 2 a node running on one thread often writes a buffer the
// node before it wrote on two (runtime/buffer_pool.h hands out the buffer
// freed last, usually still in cache), so half of the lines are modified in
// the other core's cache. A store to such a line waits for it to come over,
// and a loop whose stores hop between many lines (a layout transpose writes
// 16 channel planes at once, a partial line each) waits for one line after
// another: ShuffleNet-V2's 91 KB NCHWc reorders took 33-36 us at intra 2
// against 5 us at intra 1. Asking for all the lines first overlaps those
// transfers: 9-10 us (bench/results/nchwc-chunks-2026-12-05.md).
//
// x86's PREFETCHW (every x86-64 CPU Loom's ISA table selects has it; GCC's
// __builtin_prefetch emits it only when compiled for it, so the instruction
// is written out); elsewhere the compiler's write prefetch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom::base {

inline constexpr size_t kCacheLineBytes = 64;

// One prefetch per cache line of [begin, begin + bytes). A prefetch never
// faults, whatever the address; the lines are only asked for.
inline void PrefetchForWrite(void* begin, size_t bytes) {
  if (bytes == 0) return;
  const uintptr_t first = reinterpret_cast<uintptr_t>(begin) / kCacheLineBytes;
  const uintptr_t last = (reinterpret_cast<uintptr_t>(begin) + bytes - 1) / kCacheLineBytes;
  for (uintptr_t line = first; line <= last; ++line) {
    const uintptr_t address = line * kCacheLineBytes;
#if defined(__x86_64__)
    asm volatile("prefetchw (%0)" : : "r"(address));
#else
    __builtin_prefetch(reinterpret_cast<const void*>(address), 1, 3);
#endif
  }
}

}  // namespace loom::base
