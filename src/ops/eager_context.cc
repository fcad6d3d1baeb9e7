#include "ops/eager_context.h"

#include "runtime/process_isa.h"
#include "threading/runtime.h"

namespace loom::ops {

kernels::KernelContext EagerContext() {
  threading::Runtime& runtime = threading::GlobalRuntime();
  return {runtime.intra_op_pool(), runtime::ProcessIsa()};
}

}  // namespace loom::ops
