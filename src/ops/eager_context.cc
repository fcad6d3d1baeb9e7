#include "ops/eager_context.h"

#include <string>

#include "kernels/isa.h"
#include "threading/environment.h"
#include "threading/runtime.h"

namespace loom::ops {

kernels::KernelContext EagerContext() {
  threading::Runtime& runtime = threading::GlobalRuntime();
  // Read once; an invalid value throws from the initializer, which C++
  // retries on the next call.
  static const kernels::Isa isa = kernels::SelectIsaFromSetting(
      threading::ProcessEnvironment().Get(std::string(kernels::kMaxIsaVariable)));
  return {runtime.intra_op_pool(), isa};
}

}  // namespace loom::ops
