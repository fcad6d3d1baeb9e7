// FakeSystemProbe: a host described entirely by its files, affinity mask and
// online CPU count. For tests only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/system_probe.h"

namespace loom::platform {

class FakeSystemProbe final : public SystemProbe {
 public:
  std::map<std::string, std::string> files;
  std::optional<std::vector<int>> affinity;
  int online = 1;

  std::optional<std::string> ReadFile(const std::string& path) const override {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::vector<int>> AffinityCpus() const override { return affinity; }
  int OnlineCpuCount() const override { return online; }
};

}  // namespace loom::platform
