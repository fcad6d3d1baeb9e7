// Naming and pinning the calling thread, and listing the process's threads.
#pragma once

#include <string>
#include <vector>

namespace loom::platform {

// Sets the OS name of the calling thread (what `top -H` and `ps -T` show).
// Linux limits names to 15 bytes; longer names are truncated.
void SetCurrentThreadName(const std::string& name);

// Restricts the calling thread to `cpus`. Throws loom::RuntimeError naming the
// CPUs and errno if the kernel refuses.
void PinCurrentThread(const std::vector<int>& cpus);

struct OsThread {
  int tid = 0;
  std::string name;  // /proc/self/task/<tid>/comm without the newline
};

// Every thread of this process, from /proc/self/task, ordered by tid.
std::vector<OsThread> ListProcessThreads();

// CPU time (user + system) consumed by the whole process so far, in seconds.
double ProcessCpuSeconds();

}  // namespace loom::platform
