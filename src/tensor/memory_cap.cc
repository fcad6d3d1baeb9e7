#include "tensor/memory_cap.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/errors.h"
#include "loom/memory.h"
#include "platform/memory_limit.h"
#include "platform/system_probe.h"

namespace loom {
namespace {

constexpr char kVariable[] = "LOOM_MAX_MEMORY";

// Resolved once; 0 = not yet. The source is written before the bytes are
// published (release) and read after them (acquire).
// The atomics are constant-initialized; the source is built on first use
// (and never destroyed) because tensors are made during other files' static
// initialization and by threads still running at exit.
std::atomic<int64_t> cap_bytes{0};
std::atomic<int64_t> in_use{0};

std::string& CapSource() {  // guarded by Mutex() while cap_bytes is 0
  static auto* source = new std::string;
  return *source;
}

std::mutex& Mutex() {
  static std::mutex mutex;
  return mutex;
}

// "512 bytes", "2.0 MiB", "16.00 GiB".
std::string Readable(int64_t bytes) {
  char text[48];
  if (bytes < (int64_t{1} << 20)) {
    std::snprintf(text, sizeof(text), "%lld bytes", static_cast<long long>(bytes));
  } else if (bytes < (int64_t{1} << 30)) {
    std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  } else {
    std::snprintf(text, sizeof(text), "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  }
  return text;
}

// Throws for an invalid LOOM_MAX_MEMORY, leaving the cap unresolved (the
// next allocation reads the variable again).
int64_t ResolveCap() {
  std::lock_guard lock(Mutex());
  if (int64_t bytes = cap_bytes.load(std::memory_order_relaxed)) return bytes;
  const char* value = std::getenv(kVariable);
  int64_t bytes = 0;
  std::string source;
  if (value != nullptr && std::string_view(value) != "0") {
    std::optional<int64_t> parsed = platform::ParseMemorySize(value);
    if (!parsed) {
      throw InvalidArgumentError(
          std::string(kVariable) + "='" + value +
          "' is not a memory size: write bytes or a whole number with K, M, G or T (powers of "
          "1024), e.g. 8G, or 0 for automatic (the cgroup limit, else the physical memory)");
    }
    bytes = *parsed;
    source = std::string(kVariable) + "=" + value;
  } else {
    std::vector<std::string> notes;
    std::optional<platform::MemoryLimit> limit =
        platform::DetectMemoryLimit(platform::RealSystemProbe(), notes);
    if (limit) {
      bytes = limit->bytes;
      source = limit->source;
    } else {
      bytes = INT64_MAX;
      source = "none (the machine's memory could not be read)";
    }
  }
  CapSource() = source;
  cap_bytes.store(bytes, std::memory_order_release);
  return bytes;
}

int64_t Cap() {
  const int64_t bytes = cap_bytes.load(std::memory_order_acquire);
  return bytes != 0 ? bytes : ResolveCap();
}

}  // namespace

MemoryCap memory_cap() {
  const int64_t bytes = Cap();
  return {bytes, CapSource()};
}

int64_t tensor_bytes_in_use() { return in_use.load(std::memory_order_relaxed); }

namespace detail {

void ReserveTensorBytes(size_t bytes) {
  const int64_t cap = Cap();
  const auto amount = static_cast<int64_t>(bytes);
  // Relaxed: a count, ordered with nothing else; two racing reservations
  // near the cap may both be refused, never both granted past it.
  const int64_t after = in_use.fetch_add(amount, std::memory_order_relaxed) + amount;
  if (after > cap) {
    in_use.fetch_sub(amount, std::memory_order_relaxed);
    throw RuntimeError("cannot allocate a tensor of " + Readable(amount) +
                       ": the process's tensors would hold " + Readable(after) +
                       ", above the memory cap of " + Readable(cap) + " (" + CapSource() +
                       "; set " + kVariable + " to change it)");
  }
}

void ReleaseTensorBytes(size_t bytes) noexcept {
  in_use.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
}

ScopedMemoryCapForTesting::ScopedMemoryCapForTesting(int64_t bytes)
    : previous_bytes_(Cap()), previous_source_(CapSource()) {
  std::lock_guard lock(Mutex());
  CapSource() = "test cap";
  cap_bytes.store(bytes, std::memory_order_release);
}

ScopedMemoryCapForTesting::~ScopedMemoryCapForTesting() {
  std::lock_guard lock(Mutex());
  CapSource() = previous_source_;
  cap_bytes.store(previous_bytes_, std::memory_order_release);
}

}  // namespace detail
}  // namespace loom
