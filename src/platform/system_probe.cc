#include "platform/system_probe.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>

namespace loom::platform {
namespace {

// Largest mask tried: matches the CPU numbers ParseCpuList accepts.
constexpr int kMaxMaskCpus = 65536;

class LinuxSystemProbe final : public SystemProbe {
 public:
  std::optional<std::string> ReadFile(const std::string& path) const override {
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) return std::nullopt;
    // /proc and /sys files report size 0, so read until EOF rather than
    // trusting the size. istream::read turns read errors (EISDIR, EIO) into
    // badbit instead of throwing.
    std::string contents;
    char buffer[4096];
    while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
      contents.append(buffer, static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) return std::nullopt;
    return contents;
  }

  std::optional<std::vector<int>> AffinityCpus() const override {
    // The kernel rejects (EINVAL) a mask smaller than its own CPU count, so
    // start at the glibc default and grow for hosts with more CPUs.
    for (int size = CPU_SETSIZE; size <= kMaxMaskCpus; size *= 2) {
      cpu_set_t* set = CPU_ALLOC(size);
      if (set == nullptr) return std::nullopt;
      size_t bytes = CPU_ALLOC_SIZE(size);
      CPU_ZERO_S(bytes, set);
      if (sched_getaffinity(0, bytes, set) == 0) {
        std::vector<int> cpus;
        for (int cpu = 0; cpu < size; ++cpu) {
          if (CPU_ISSET_S(cpu, bytes, set)) cpus.push_back(cpu);
        }
        CPU_FREE(set);
        return cpus;
      }
      int error = errno;
      CPU_FREE(set);
      if (error != EINVAL) return std::nullopt;
    }
    return std::nullopt;
  }

  int OnlineCpuCount() const override {
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return static_cast<int>(std::clamp<long>(count, 1, kMaxMaskCpus));
  }
};

}  // namespace

const SystemProbe& RealSystemProbe() {
  // Stateless, so sharing one instance across threads is safe.
  static const LinuxSystemProbe probe;
  return probe;
}

}  // namespace loom::platform
