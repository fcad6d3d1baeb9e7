// ONNX TensorProto.DataType numbers of Loom's dtypes (FLOAT = 1, UINT8 = 2,
// INT8 = 3, INT32 = 6, INT64 = 7, BOOL = 9, FLOAT16 = 10, DOUBLE = 11): the
// `to` attribute of Cast and, later, the importer's element types.
#pragma once

#include <cstdint>
#include <optional>

#include "loom/tensor.h"

namespace loom::kernels {

int64_t OnnxDataType(DType dtype);

// nullopt for a number that is not one of Loom's dtypes (strings, bfloat16,
// complex, unsigned 16/32/64-bit ...).
std::optional<DType> DTypeFromOnnxDataType(int64_t code);

}  // namespace loom::kernels
