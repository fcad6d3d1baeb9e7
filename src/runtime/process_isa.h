// The instruction set this process runs kernels with: the best the CPU
// supports, capped by LOOM_MAX_ISA (read once). Shared by sessions and eager
// ops so both always agree.
#pragma once

#include "kernels/isa.h"

namespace loom::runtime {

// Throws InvalidArgumentError naming LOOM_MAX_ISA for an invalid value (and
// reads the variable again on the next call).
kernels::Isa ProcessIsa();

}  // namespace loom::runtime
