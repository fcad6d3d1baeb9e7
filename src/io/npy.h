// NumPy .npy files ⇄ loom::Tensor (format versions 1.0, 2.0 and 3.0;
// little-endian, C order; dtypes float32/64, float16, int8/16/32/64,
// uint8/16/32/64, bool; not bfloat16, which NumPy lacks). Used by `loom run
// --input/--save-outputs` and by the tests that compare with
// ../shared/models/*.npy.
#pragma once

#include <string>
#include <string_view>

#include "loom/tensor.h"

namespace loom::io {

// Throws loom::InvalidArgumentError naming `label` (the path) for anything
// malformed: bad magic, header not a dict, unsupported dtype or byte order,
// Fortran order, a shape whose byte size overflows or does not match the
// data that follows. Never reads past the buffer.
Tensor ParseNpy(std::string_view bytes, const std::string& label);
Tensor ReadNpy(const std::string& path);

// Both throw loom::InvalidArgumentError for a bfloat16 tensor (numpy has no
// bfloat16 type code).
std::string SerializeNpy(const Tensor& tensor);
// Throws loom::RuntimeError naming the path when writing fails.
void WriteNpy(const std::string& path, const Tensor& tensor);

}  // namespace loom::io
