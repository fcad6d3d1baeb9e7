#include "runtime/process_isa.h"

#include <string>

#include "threading/environment.h"

namespace loom::runtime {

kernels::Isa ProcessIsa() {
  // An invalid value throws from the initializer, which C++ retries on the
  // next call.
  static const kernels::Isa isa = kernels::SelectIsaFromSetting(
      threading::ProcessEnvironment().Get(std::string(kernels::kMaxIsaVariable)));
  return isa;
}

}  // namespace loom::runtime
