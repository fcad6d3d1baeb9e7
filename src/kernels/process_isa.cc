#include "kernels/process_isa.h"

#include <string>

#include "threading/environment.h"

namespace loom::kernels {

Isa ProcessIsa() {
  // An invalid value throws from the initializer, which C++ retries on the
  // next call.
  static const Isa isa =
      SelectIsaFromSetting(threading::ProcessEnvironment().Get(std::string(kMaxIsaVariable)));
  return isa;
}

}  // namespace loom::kernels
