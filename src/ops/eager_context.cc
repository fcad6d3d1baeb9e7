#include "ops/eager_context.h"

#include "kernels/process_isa.h"
#include "threading/runtime.h"

namespace loom::ops {

kernels::KernelContext EagerContext() {
  threading::Runtime& runtime = threading::GlobalRuntime();
  return {runtime.intra_op_pool(), kernels::ProcessIsa()};
}

}  // namespace loom::ops
