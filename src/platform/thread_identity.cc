#include "platform/thread_identity.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "loom/errors.h"
#include "platform/cpu_list.h"

namespace loom::platform {

void SetCurrentThreadName(const std::string& name) {
  // The kernel's limit is 16 bytes including the terminator; longer names
  // make pthread_setname_np fail with ERANGE instead of truncating.
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

void PinCurrentThread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  if (rc != 0) {
    throw RuntimeError("cannot pin thread to CPUs " + FormatCpuList(cpus) +
                       ": pthread_setaffinity_np failed: " + std::strerror(rc));
  }
}

bool ExcludeCpuFromThread(int tid, int cpu, cpu_set_t* saved) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  if (sched_getaffinity(tid, sizeof(*saved), saved) != 0) return false;
  if (!CPU_ISSET(cpu, saved) || CPU_COUNT(saved) < 2) return false;
  cpu_set_t narrowed = *saved;
  CPU_CLR(cpu, &narrowed);
  return sched_setaffinity(tid, sizeof(narrowed), &narrowed) == 0;
}

bool SteerThreadToCpu(int tid, int cpu, cpu_set_t* saved) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  if (sched_getaffinity(tid, sizeof(*saved), saved) != 0 || !CPU_ISSET(cpu, saved)) return false;
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  return sched_setaffinity(tid, sizeof(only), &only) == 0;
}

void RestoreCurrentThreadAffinity(const cpu_set_t& mask) {
  sched_setaffinity(0, sizeof(mask), &mask);
}

std::vector<OsThread> ListProcessThreads() {
  std::vector<OsThread> threads;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return threads;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    OsThread thread;
    thread.tid = std::atoi(entry->d_name);
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::getline(comm, thread.name);
    threads.push_back(std::move(thread));
  }
  closedir(dir);
  std::sort(threads.begin(), threads.end(),
            [](const OsThread& a, const OsThread& b) { return a.tid < b.tid; });
  return threads;
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace loom::platform
