#include "threading/environment.h"

#include <cstdlib>

namespace loom::threading {
namespace {

class GetenvEnvironment : public Environment {
 public:
  std::optional<std::string> Get(const std::string& name) const override {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }
};

}  // namespace

const Environment& ProcessEnvironment() {
  static const GetenvEnvironment environment;
  return environment;
}

}  // namespace loom::threading
