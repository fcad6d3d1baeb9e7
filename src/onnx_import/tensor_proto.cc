// TensorProto stores elements in one of three places: raw_data (packed
// little-endian bytes), a typed repeated field (float_data; int32_data for
// the signed and the 8/16-bit types and bool, float16 and bfloat16 as their
// bit patterns; int64_data; uint64_data for uint32 and uint64; double_data;
// string_data, the only place for STRING), or an external file. Every size is checked against the
// dims before anything is allocated, so a corrupted dims field cannot ask for a terabyte.
#include "onnx_import/tensor_proto.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "kernels/onnx_dtype.h"
#include "loom/errors.h"
#include "onnx_import/external_data.h"

namespace loom::onnx_import {
namespace {

static_assert(std::endian::native == std::endian::little,
              "raw_data is little-endian and copied as is");

[[noreturn]] void Fail(const std::string& what, const std::string& detail) {
  throw InvalidArgumentError(what + ": " + detail);
}

std::string DataTypeName(int32_t code) {
  if (onnx::TensorProto_DataType_IsValid(code)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(code));
  }
  return "data type " + std::to_string(code);
}

// Copies an int32_data field into a narrower element type, checking range.
template <typename T>
void NarrowInt32(const std::string& what, const google::protobuf::RepeatedField<int32_t>& values,
                 int64_t lo, int64_t hi, T* out) {
  for (int i = 0; i < values.size(); ++i) {
    const int32_t v = values.Get(i);
    if (v < lo || v > hi) {
      Fail(what, "int32_data[" + std::to_string(i) + "] = " + std::to_string(v) +
                     " is outside the element type's range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
    }
    out[i] = static_cast<T>(v);
  }
}

// The number of values in the typed field that holds `dtype`'s elements.
int TypedFieldSize(const onnx::TensorProto& proto, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return proto.float_data_size();
    case DType::kFloat64:
      return proto.double_data_size();
    case DType::kInt64:
      return proto.int64_data_size();
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kInt32:
    case DType::kBool:
      return proto.int32_data_size();
    case DType::kUInt32:
    case DType::kUInt64:
      return proto.uint64_data_size();
    case DType::kString:
      return proto.string_data_size();
  }
  return 0;
}

void CopyTypedField(const onnx::TensorProto& proto, const std::string& what, Tensor& tensor) {
  switch (tensor.dtype()) {
    case DType::kFloat32:
      std::copy(proto.float_data().begin(), proto.float_data().end(), tensor.data<float>());
      break;
    case DType::kFloat64:
      std::copy(proto.double_data().begin(), proto.double_data().end(), tensor.data<double>());
      break;
    case DType::kInt64:
      std::copy(proto.int64_data().begin(), proto.int64_data().end(), tensor.data<int64_t>());
      break;
    case DType::kInt32:
      std::copy(proto.int32_data().begin(), proto.int32_data().end(), tensor.data<int32_t>());
      break;
    case DType::kInt8:
      NarrowInt32(what, proto.int32_data(), -128, 127, tensor.data<int8_t>());
      break;
    case DType::kUInt8:
      NarrowInt32(what, proto.int32_data(), 0, 255, tensor.data<uint8_t>());
      break;
    case DType::kBool:
      NarrowInt32(what, proto.int32_data(), 0, 1, static_cast<uint8_t*>(tensor.raw_data()));
      break;
    case DType::kFloat16:
    case DType::kBFloat16:
      // float16 and bfloat16 elements travel as their 16 bits in int32_data.
      NarrowInt32(what, proto.int32_data(), 0, 65535, static_cast<uint16_t*>(tensor.raw_data()));
      break;
    case DType::kInt16:
      NarrowInt32(what, proto.int32_data(), -32768, 32767, tensor.data<int16_t>());
      break;
    case DType::kUInt16:
      NarrowInt32(what, proto.int32_data(), 0, 65535, tensor.data<uint16_t>());
      break;
    case DType::kUInt32:
      for (int i = 0; i < proto.uint64_data_size(); ++i) {
        const uint64_t v = proto.uint64_data(i);
        if (v > 0xffffffffu) {
          Fail(what, "uint64_data[" + std::to_string(i) + "] = " + std::to_string(v) +
                         " is outside the element type's range [0, 4294967295]");
        }
        tensor.data<uint32_t>()[i] = static_cast<uint32_t>(v);
      }
      break;
    case DType::kUInt64:
      std::copy(proto.uint64_data().begin(), proto.uint64_data().end(), tensor.data<uint64_t>());
      break;
    case DType::kString:
      std::copy(proto.string_data().begin(), proto.string_data().end(), tensor.data<std::string>());
      break;
  }
}

bool HasTypedData(const onnx::TensorProto& proto) {
  return proto.float_data_size() > 0 || proto.int32_data_size() > 0 ||
         proto.string_data_size() > 0 || proto.int64_data_size() > 0 ||
         proto.double_data_size() > 0 || proto.uint64_data_size() > 0;
}

}  // namespace

Tensor TensorFromProto(const onnx::TensorProto& proto, const ExternalDataPolicy& policy,
                       const std::string& what) {
  const std::optional<DType> dtype = kernels::DTypeFromOnnxDataType(proto.data_type());
  if (!dtype) {
    Fail(what, "element type " + DataTypeName(proto.data_type()) + " is not supported (" +
                   kernels::SupportedOnnxDataTypes() + ")");
  }
  if (proto.has_segment()) Fail(what, "segmented tensors are not supported");
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  Shape shape;
  try {
    shape = Shape(dims);
  } catch (const InvalidArgumentError& e) {
    Fail(what, std::string("invalid dims: ") + e.what());
  }
  const auto count = static_cast<uint64_t>(shape.num_elements());
  const size_t element_size = dtype_size(*dtype);
  if (count > static_cast<uint64_t>(kMaxTensorBytes) / element_size) {
    Fail(what, "dims " + shape.to_string() + " need more than the " +
                   std::to_string(kMaxTensorBytes) + "-byte tensor limit");
  }
  const size_t bytes = static_cast<size_t>(count) * element_size;

  const bool external = proto.data_location() == onnx::TensorProto::EXTERNAL;
  const int sources =
      (external ? 1 : 0) + (proto.has_raw_data() ? 1 : 0) + (HasTypedData(proto) ? 1 : 0);
  if (sources > 1) {
    Fail(what, "holds data in more than one place (raw_data, a typed field, external data)");
  }

  if (*dtype == DType::kString && (external || proto.has_raw_data())) {
    Fail(what,
         "a STRING tensor keeps its elements in string_data, not in raw_data or an "
         "external file");
  }
  if (external) {
    const ExternalDataFile file(proto, policy.model_dir, what, bytes);
    Tensor tensor(*dtype, shape);
    if (bytes > 0) file.ReadInto(tensor.raw_data());
    if (*dtype == DType::kBool) {
      uint8_t* p = static_cast<uint8_t*>(tensor.raw_data());
      for (size_t i = 0; i < bytes; ++i) p[i] = p[i] != 0 ? 1 : 0;
    }
    return tensor;
  }
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    if (raw.size() != bytes) {
      Fail(what, "raw_data has " + std::to_string(raw.size()) + " bytes, but dims " +
                     shape.to_string() + " of " + std::string(dtype_name(*dtype)) + " need " +
                     std::to_string(bytes));
    }
    Tensor tensor(*dtype, shape);
    if (bytes > 0) std::memcpy(tensor.raw_data(), raw.data(), bytes);
    if (*dtype == DType::kBool) {
      // Loom's bools are 0 or 1; other bytes would make comparisons lie.
      uint8_t* p = static_cast<uint8_t*>(tensor.raw_data());
      for (size_t i = 0; i < bytes; ++i) p[i] = p[i] != 0 ? 1 : 0;
    }
    return tensor;
  }
  const auto values = static_cast<uint64_t>(TypedFieldSize(proto, *dtype));
  if (values != count) {
    if (count > 0 && values == 0 && !HasTypedData(proto)) {
      Fail(what, "has no data for dims " + shape.to_string());
    }
    Fail(what, "holds " + std::to_string(values) + " values in the field for " +
                   DataTypeName(proto.data_type()) + ", but dims " + shape.to_string() + " need " +
                   std::to_string(count));
  }
  Tensor tensor(*dtype, shape);
  if (count > 0) CopyTypedField(proto, what, tensor);
  return tensor;
}

onnx::TensorProto TensorToProto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(static_cast<int32_t>(kernels::OnnxDataType(tensor.dtype())));
  for (int64_t d : tensor.shape().dims()) proto.add_dims(d);
  if (tensor.dtype() == DType::kString) {
    const std::string* strings = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.num_elements(); ++i) proto.add_string_data(strings[i]);
  } else if (tensor.nbytes() > 0) {
    proto.set_raw_data(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  } else {
    proto.set_raw_data("");
  }
  return proto;
}

}  // namespace loom::onnx_import
