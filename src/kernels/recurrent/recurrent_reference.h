// The plain recurrent layers (the test oracle of recurrent.cc): ONNX's
// equations one batch, step and hidden unit at a time, in double, with no
// GEMM, no buffers shared between batches and no threads. Same inputs,
// attributes and outputs (Y, Y_h and LSTM's Y_c) as the kernels.
#pragma once

#include <vector>

#include "kernels/op_kernel.h"
#include "kernels/recurrent/recurrent_problem.h"

namespace loom::kernels::recurrent {

std::vector<Tensor> RecurrentReference(CellKind cell, const Attributes& attrs, KernelInputs inputs);

}  // namespace loom::kernels::recurrent
