// Where eager ops run: the global runtime's intra-op pool and the ISA this
// process uses (SelectIsa under LOOM_MAX_ISA, read once).
#pragma once

#include "kernels/op_kernel.h"

namespace loom::ops {

// Starts the global runtime on the first call. Throws InvalidArgumentError
// for an invalid threading variable or LOOM_MAX_ISA (and retries next time).
kernels::KernelContext EagerContext();

}  // namespace loom::ops
