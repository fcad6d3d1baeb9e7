// Thin wrappers over the Linux futex syscall: block until a 32-bit word
// changes, wake blocked waiters. std::atomic::wait would do, but libstdc++'s
// version spins for an unspecified time before sleeping, and Loom's spin time
// must be exactly the configured one.
#pragma once

#include <atomic>
#include <cstdint>

namespace loom::platform {

// Blocks while `word` holds `expected` (returns at once if it does not).
// May return spuriously; callers re-check their condition in a loop.
void FutexWait(std::atomic<uint32_t>& word, uint32_t expected);

// Wakes up to `count` threads blocked in FutexWait on `word`.
void FutexWake(std::atomic<uint32_t>& word, int count);

// A CPU hint for spin loops: lets the sibling hyperthread run and saves power.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace loom::platform
