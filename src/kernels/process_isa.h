// The instruction set this process runs kernels with: the best the CPU
// supports, capped by LOOM_MAX_ISA (read once). Shared by sessions, eager
// ops and the CLI so all three always agree; it lives in the kernel layer
// so that eager ops need not link the session layer for it.
#pragma once

#include "kernels/isa.h"

namespace loom::kernels {

// Throws InvalidArgumentError naming LOOM_MAX_ISA for an invalid value (and
// reads the variable again on the next call).
Isa ProcessIsa();

}  // namespace loom::kernels
