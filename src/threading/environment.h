// Environment: where ThreadingConfig reads environment variables from.
// Injected so tests can set variables without touching the real process
// environment (which is shared by every test in the binary).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace loom::threading {

class Environment {
 public:
  virtual ~Environment() = default;
  // The variable's value (possibly empty), or nullopt when it is not set.
  virtual std::optional<std::string> Get(const std::string& name) const = 0;
};

// getenv. Thread-safe as long as nobody calls setenv concurrently.
const Environment& ProcessEnvironment();

// A fixed set of variables, for tests.
class MapEnvironment : public Environment {
 public:
  MapEnvironment(std::initializer_list<std::pair<const std::string, std::string>> vars)
      : vars_(vars) {}
  std::optional<std::string> Get(const std::string& name) const override {
    auto it = vars_.find(name);
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, std::string> vars_;
};

}  // namespace loom::threading
