// Naming and pinning the calling thread, and listing the process's threads.
#pragma once

#include <sched.h>

#include <string>
#include <vector>

namespace loom::platform {

// Sets the OS name of the calling thread (what `top -H` and `ps -T` show).
// Linux limits names to 15 bytes; longer names are truncated.
void SetCurrentThreadName(const std::string& name);

// Restricts the calling thread to `cpus`. Throws loom::RuntimeError naming the
// CPUs and errno if the kernel refuses.
void PinCurrentThread(const std::vector<int>& cpus);

// Narrows thread `tid`'s affinity mask to exclude `cpu`, saving the mask it
// had in `saved`. Returns false, changing nothing, if `cpu` is not in the
// mask, it is the only CPU there, or the kernel refuses.
bool ExcludeCpuFromThread(int tid, int cpu, cpu_set_t* saved);

// Narrows thread `tid`'s affinity mask to `cpu` alone, saving the mask it had
// in `saved`. Returns false, changing nothing, if `cpu` is not in the mask or
// the kernel refuses.
bool SteerThreadToCpu(int tid, int cpu, cpu_set_t* saved);

// Sets the calling thread's affinity mask back to `mask` (best effort).
void RestoreCurrentThreadAffinity(const cpu_set_t& mask);

struct OsThread {
  int tid = 0;
  std::string name;  // /proc/self/task/<tid>/comm without the newline
};

// Every thread of this process, from /proc/self/task, ordered by tid.
std::vector<OsThread> ListProcessThreads();

// CPU time (user + system) consumed by the whole process so far, in seconds.
double ProcessCpuSeconds();

}  // namespace loom::platform
