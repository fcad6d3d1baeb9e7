#include "kernels/spatial_geometry.h"

#include <string>

#include "base/int_math.h"
#include "kernels/op_kernel.h"

namespace loom::kernels {

bool SpatialGeometry::has_padding() const {
  for (int i = 0; i < rank(); ++i) {
    if (pad_begin[i] != 0 || pad_end[i] != 0) return true;
    // A window may also run past the end when the stride leaves a remainder.
    if ((output[i] - 1) * stride[i] + (kernel[i] - 1) * dilation[i] >= input[i]) return true;
  }
  return false;
}

namespace {

std::string ListToString(std::span<const int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::vector<int64_t> PositiveList(std::string_view op, const Attributes& attrs,
                                  std::string_view name, size_t rank) {
  std::vector<int64_t> values = attrs.get_ints(name, std::vector<int64_t>(rank, 1));
  if (values.size() != rank) {
    ThrowKernelError(op, "attribute '" + std::string(name) + "' must have " + std::to_string(rank) +
                             " values (got " + ListToString(values) + ")");
  }
  for (int64_t v : values) {
    if (v <= 0) {
      ThrowKernelError(op, "attribute '" + std::string(name) + "' must be positive (got " +
                               ListToString(values) + ")");
    }
  }
  return values;
}

using base::CeilDiv;

// Window arithmetic multiplies and adds these numbers; bounding each by
// 2^31 keeps every intermediate far inside int64.
constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

void CheckBounded(std::string_view op, std::string_view what, std::span<const int64_t> values) {
  for (int64_t v : values) {
    if (v > kMaxWindowValue) {
      ThrowKernelError(op, std::string(what) + " " + ListToString(values) +
                               " is too large (limit 2^31 per value)");
    }
  }
}

}  // namespace

SpatialGeometry ResolveSpatialGeometry(std::string_view op, const Attributes& attrs,
                                       std::span<const int64_t> input,
                                       std::span<const int64_t> kernel,
                                       const SpatialGeometryOptions& options) {
  const size_t rank = input.size();
  SpatialGeometry g;
  g.input.assign(input.begin(), input.end());
  if (attrs.has("kernel_shape")) {
    g.kernel = attrs.get_ints("kernel_shape");
    if (!kernel.empty() &&
        !std::equal(g.kernel.begin(), g.kernel.end(), kernel.begin(), kernel.end())) {
      ThrowKernelError(op, "attribute 'kernel_shape' " + ListToString(g.kernel) +
                               " disagrees with the weights' spatial shape " +
                               ListToString(kernel));
    }
  } else if (!kernel.empty()) {
    g.kernel.assign(kernel.begin(), kernel.end());
  } else {
    ThrowKernelError(op, "required attribute 'kernel_shape' is missing");
  }
  if (g.kernel.size() != rank) {
    ThrowKernelError(op, "kernel_shape " + ListToString(g.kernel) + " must have " +
                             std::to_string(rank) + " values, one per spatial axis");
  }
  for (int64_t k : g.kernel) {
    if (k <= 0)
      ThrowKernelError(op, "kernel_shape must be positive (got " + ListToString(g.kernel) + ")");
  }
  g.stride = PositiveList(op, attrs, "strides", rank);
  if (!options.allow_dilations && attrs.has("dilations")) {
    ThrowKernelError(op, "attribute 'dilations' is not supported");
  }
  g.dilation = PositiveList(op, attrs, "dilations", rank);
  const int64_t ceil_mode = attrs.get_int("ceil_mode", 0);
  if (ceil_mode != 0 && !options.allow_ceil_mode) {
    ThrowKernelError(op, "attribute 'ceil_mode' is not supported");
  }

  const std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  g.pad_begin.assign(rank, 0);
  g.pad_end.assign(rank, 0);
  g.output.assign(rank, 0);
  if (auto_pad == "NOTSET") {
    std::vector<int64_t> pads = attrs.get_ints("pads", std::vector<int64_t>(2 * rank, 0));
    if (pads.size() != 2 * rank) {
      ThrowKernelError(op, "attribute 'pads' must have " + std::to_string(2 * rank) +
                               " values (got " + ListToString(pads) + ")");
    }
    for (int64_t p : pads) {
      if (p < 0)
        ThrowKernelError(op,
                         "attribute 'pads' must not be negative (got " + ListToString(pads) + ")");
    }
    for (size_t i = 0; i < rank; ++i) {
      g.pad_begin[i] = pads[i];
      g.pad_end[i] = pads[i + rank];
    }
  } else if (auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    ThrowKernelError(op,
                     "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID (got '" +
                         auto_pad + "')");
  }

  CheckBounded(op, "input spatial shape", g.input);
  CheckBounded(op, "kernel_shape", g.kernel);
  CheckBounded(op, "strides", g.stride);
  CheckBounded(op, "dilations", g.dilation);
  CheckBounded(op, "pads", g.pad_begin);
  CheckBounded(op, "pads", g.pad_end);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t extent = (g.kernel[i] - 1) * g.dilation[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.output[i] = CeilDiv(g.input[i], g.stride[i]);
      const int64_t total =
          std::max<int64_t>(0, (g.output[i] - 1) * g.stride[i] + extent - g.input[i]);
      const int64_t smaller = total / 2;
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? smaller : total - smaller;
      g.pad_end[i] = total - g.pad_begin[i];
      continue;
    }
    const int64_t padded = g.input[i] + g.pad_begin[i] + g.pad_end[i];
    if (extent > padded) {
      ThrowKernelError(op, "window extent " + std::to_string(extent) + " on spatial axis " +
                               std::to_string(i) + " exceeds the padded input size " +
                               std::to_string(padded) + " (input " + ListToString(g.input) + ")");
    }
    if (ceil_mode != 0) {
      int64_t out = CeilDiv(padded - extent, g.stride[i]) + 1;
      if ((out - 1) * g.stride[i] >= g.input[i] + g.pad_begin[i]) --out;
      g.output[i] = out;
    } else {
      g.output[i] = (padded - extent) / g.stride[i] + 1;
    }
  }
  return g;
}

}  // namespace loom::kernels
