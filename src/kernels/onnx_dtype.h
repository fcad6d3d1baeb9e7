// ONNX TensorProto.DataType numbers of Loom's dtypes (FLOAT = 1, UINT8 = 2,
// INT8 = 3, UINT16 = 4, INT16 = 5, INT32 = 6, INT64 = 7, STRING = 8,
// BOOL = 9, FLOAT16 = 10, DOUBLE = 11, UINT32 = 12, UINT64 = 13,
// BFLOAT16 = 16): the `to` attribute of Cast and the importer's element
// types. Attributes that name a numeric output type (EyeLike's dtype, the
// window functions' output_datatype) refuse STRING themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "loom/tensor.h"

namespace loom::kernels {

int64_t OnnxDataType(DType dtype);

// nullopt for a number that is not one of Loom's dtypes (complex,
// the float8 and 4-bit types ...).
std::optional<DType> DTypeFromOnnxDataType(int64_t code);

// "1 FLOAT, 2 UINT8, ..., 16 BFLOAT16": every supported number with its
// TensorProto name, in numeric order, for error messages.
std::string SupportedOnnxDataTypes();

}  // namespace loom::kernels
