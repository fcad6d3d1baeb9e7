#include "platform/futex.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace loom::platform {
namespace {

// std::atomic<uint32_t> is a plain 32-bit word on Linux targets, so its
// address is a valid futex address.
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

uint32_t* Address(std::atomic<uint32_t>& word) { return reinterpret_cast<uint32_t*>(&word); }

}  // namespace

void FutexWait(std::atomic<uint32_t>& word, uint32_t expected) {
  syscall(SYS_futex, Address(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>& word, int count) {
  syscall(SYS_futex, Address(word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

}  // namespace loom::platform
