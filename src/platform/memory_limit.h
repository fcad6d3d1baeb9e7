// How much memory this process may use, and LOOM_MAX_MEMORY's parser: the
// facts behind loom::memory_cap() (include/loom/tensor.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/system_probe.h"

namespace loom::platform {

struct MemoryLimit {
  int64_t bytes = 0;
  std::string source;  // e.g. "cgroup limit /sys/fs/cgroup/app/memory.max"
};

// The tightest cgroup memory limit (cgroup_quota.h), else the physical
// memory (MemTotal in /proc/meminfo); nullopt when neither can be read.
// Never throws: malformed files are skipped and described in `notes`.
std::optional<MemoryLimit> DetectMemoryLimit(const SystemProbe& probe,
                                             std::vector<std::string>& notes);

// A size as people write it: bytes ("1073741824"), or a whole number with a
// binary suffix K, M, G or T, optionally followed by "B" or "iB", any case
// ("512M", "8GiB", "2g"). nullopt for anything else, zero, or a size that
// does not fit in int64.
std::optional<int64_t> ParseMemorySize(std::string_view text);

}  // namespace loom::platform
