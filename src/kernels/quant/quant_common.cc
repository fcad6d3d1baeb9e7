#include "kernels/quant/quant_common.h"

#include <array>
#include <string>
#include <type_traits>

#include "kernels/dtype_visit.h"
#include "loom/bfloat16.h"
#include "loom/errors.h"
#include "loom/float16.h"

namespace loom::kernels::quant {

std::vector<float> ReadFloats(const Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.num_elements()));
  VisitDType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
  });
  return out;
}

std::vector<int32_t> ReadInts(const Tensor& t) {
  std::vector<int32_t> out(static_cast<size_t>(t.num_elements()));
  VisitDType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    if constexpr (std::is_integral_v<T>) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int32_t>(p[i]);
    }
  });
  return out;
}

float RoundTo(DType dtype, float v) {
  if (dtype == DType::kFloat16) return static_cast<float>(Float16(v));
  if (dtype == DType::kBFloat16) return static_cast<float>(BFloat16(v));
  return v;
}

bool Avx512BwSupported() {
#if defined(__x86_64__)
  static const bool supported = __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vl");
  return supported;
#else
  return false;
#endif
}

namespace {

// The span kernels by level; the AVX-512 ones also need AVX-512 BW and VL.
struct SpanVariant {
  Isa isa;
  bool avx512;
};
constexpr std::array<SpanVariant, 2> kSpanVariants = {
    {{Isa::kPortable, false}, {Isa::kAvx512f, true}}};

}  // namespace

bool UseAvx512Spans(Isa isa) {
  return SelectIsaVariant("quantized spans", kSpanVariants, isa,
                          [](const SpanVariant& v) { return !v.avx512 || Avx512BwSupported(); })
      .avx512;
}

IsaMask QuantSpanIsaLevels() { return IsaVariantLevels(kSpanVariants); }

IntRange RangeOf(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return {-128, 127};
    case DType::kUInt8:
      return {0, 255};
    case DType::kInt16:
      return {-32768, 32767};
    case DType::kUInt16:
      return {0, 65535};
    default:
      return {INT32_MIN, INT32_MAX};
  }
}

void StoreInt(Tensor& t, int64_t i, int32_t v) {
  switch (t.dtype()) {
    case DType::kInt8:
      t.data<int8_t>()[i] = static_cast<int8_t>(v);
      return;
    case DType::kUInt8:
      t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
      return;
    case DType::kInt16:
      t.data<int16_t>()[i] = static_cast<int16_t>(v);
      return;
    case DType::kUInt16:
      t.data<uint16_t>()[i] = static_cast<uint16_t>(v);
      return;
    default:
      t.data<int32_t>()[i] = v;
      return;
  }
}

QuantLayout ResolveQuantLayout(std::string_view op, const Shape& x, const Tensor& scale,
                               const Tensor* zero_point, std::string_view scale_name, int64_t axis,
                               int64_t block_size) {
  // One value each counts as per tensor whatever the shapes ([] vs [1]: ONNX
  // Runtime's quantizer writes such pairs).
  if (zero_point != nullptr && zero_point->shape() != scale.shape() &&
      !(zero_point->num_elements() == 1 && scale.num_elements() == 1 && block_size == 0)) {
    ThrowKernelError(op, "the zero point must have the shape of input '" + std::string(scale_name) +
                             "' " + scale.shape().to_string() + " (got " +
                             zero_point->shape().to_string() + ")");
  }
  QuantLayout layout;
  if (block_size < 0) {
    ThrowKernelError(
        op, "attribute 'block_size' must be >= 0 (got " + std::to_string(block_size) + ")");
  }
  const bool single = scale.shape().rank() == 0 ||
                      (scale.shape().rank() == 1 && scale.num_elements() == 1 && block_size == 0);
  if (single) {
    // Per tensor: every element its own row, all reading parameter 0.
    layout.n = x.num_elements();
    return layout;
  }
  if (x.rank() == 0) {
    ThrowKernelError(op, "input '" + std::string(scale_name) + "' " + scale.shape().to_string() +
                             " must be a scalar for a scalar x");
  }
  const int ax = NormalizeAxis(op, axis, x.rank());
  const AxisExtents e = ExtentsAroundAxis(x, ax);
  layout.outer = e.outer;
  layout.n = e.n;
  layout.inner = e.inner;
  if (block_size == 0) {
    if (scale.shape().rank() != 1 || scale.num_elements() != e.n) {
      ThrowKernelError(op,
                       "input '" + std::string(scale_name) + "' " + scale.shape().to_string() +
                           " must be a scalar or 1-D with x.shape[axis] = " + std::to_string(e.n) +
                           " values (axis " + std::to_string(ax) + ", x " + x.to_string() + ")");
    }
    layout.mode = QuantLayout::kPerAxis;
    return layout;
  }
  const int64_t blocks = (e.n + block_size - 1) / block_size;
  std::vector<int64_t> expected = x.dims();
  expected[static_cast<size_t>(ax)] = blocks;
  if (scale.shape().dims() != expected) {
    ThrowKernelError(op, "blocked input '" + std::string(scale_name) + "' must have shape " +
                             Shape(expected).to_string() + " (x " + x.to_string() +
                             ", block_size " + std::to_string(block_size) + " along axis " +
                             std::to_string(ax) + "), got " + scale.shape().to_string());
  }
  layout.mode = QuantLayout::kBlocked;
  layout.block = block_size;
  layout.blocks = blocks;
  return layout;
}

}  // namespace loom::kernels::quant
