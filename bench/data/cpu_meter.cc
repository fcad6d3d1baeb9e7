#include "cpu_meter.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include "platform/thread_identity.h"

namespace loom::bench {
namespace {

// utime + stime of one thread in clock ticks, or -1 if it cannot be read.
// Fields 14 and 15 of the stat line; the name (field 2, in parentheses) may
// hold spaces, so counting starts after its closing parenthesis.
int64_t ThreadCpuTicks(int tid) {
  std::ifstream file("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  if (!std::getline(file, line)) return -1;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(line.substr(close + 2));  // starts at field 3, the state
  std::string field;
  int64_t utime = -1, stime = -1;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::stoll(field);
    if (index == 15) {
      stime = std::stoll(field);
      break;
    }
  }
  return utime < 0 || stime < 0 ? -1 : utime + stime;
}

}  // namespace

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

double NamedThreadsCpuSeconds(const std::string& prefix) {
  static const double kTicksPerSecond = static_cast<double>(sysconf(_SC_CLK_TCK));
  int64_t ticks = 0;
  for (const platform::OsThread& thread : platform::ListProcessThreads()) {
    if (thread.name.rfind(prefix, 0) != 0) continue;
    const int64_t t = ThreadCpuTicks(thread.tid);
    if (t > 0) ticks += t;
  }
  return static_cast<double>(ticks) / kTicksPerSecond;
}

void CallCpuLog::Clear() {
  std::lock_guard lock(mutex_);
  calls_.clear();
}

void CallCpuLog::Record(int64_t wall_start_ns, int64_t wall_end_ns, int64_t cpu_ns) {
  std::lock_guard lock(mutex_);
  calls_.push_back({wall_start_ns, wall_end_ns, cpu_ns});
}

double CallCpuLog::CpuSecondsIn(int64_t from_ns, int64_t to_ns) const {
  std::lock_guard lock(mutex_);
  double cpu_ns = 0;
  for (const Call& call : calls_) {
    const int64_t start = std::max(call.wall_start_ns, from_ns);
    const int64_t end = std::min(call.wall_end_ns, to_ns);
    if (end <= start) continue;
    const int64_t length = call.wall_end_ns - call.wall_start_ns;
    cpu_ns += static_cast<double>(call.cpu_ns) * static_cast<double>(end - start) /
              static_cast<double>(std::max<int64_t>(length, 1));
  }
  return cpu_ns * 1e-9;
}

double CallCpuLog::MedianCallCpuMs(int64_t from_ns, int64_t to_ns) const {
  std::vector<int64_t> cpu;
  {
    std::lock_guard lock(mutex_);
    for (const Call& call : calls_) {
      if (call.wall_end_ns >= from_ns && call.wall_end_ns <= to_ns) cpu.push_back(call.cpu_ns);
    }
  }
  if (cpu.empty()) return 0;
  std::nth_element(cpu.begin(), cpu.begin() + cpu.size() / 2, cpu.end());
  return static_cast<double>(cpu[cpu.size() / 2]) * 1e-6;
}

}  // namespace loom::bench
