#include "kernels/conv/conv_transpose.h"

#include <algorithm>
#include <string>

#include "kernels/gemm/gemm.h"
#include "loom/errors.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "ConvTranspose";

std::vector<int64_t> PerAxis(const Attributes& attrs, const char* name, size_t rank,
                             int64_t fallback, size_t count_factor = 1) {
  std::vector<int64_t> v = attrs.get_ints(name, {});
  if (v.empty()) return std::vector<int64_t>(rank * count_factor, fallback);
  if (v.size() != rank * count_factor) {
    ThrowKernelError(kOp, "attribute '" + std::string(name) + "' has " + std::to_string(v.size()) +
                              " values, expected " + std::to_string(rank * count_factor));
  }
  return v;
}

// col2im for one output channel: plane[o...] += cols[t..., i...] for every
// kernel tap t and input position i with o = i*s - pb + t*d inside the
// output. Axes are walked recursively; the last axis is the inner loop.
void AddColumns(const float* cols, float* plane, const ConvTransposeGeometry& g,
                const std::vector<int64_t>& input, size_t axis, const std::vector<int64_t>& tap,
                int64_t col_offset, int64_t out_offset) {
  const size_t rank = input.size();
  int64_t in_inner = 1, out_inner = 1;
  for (size_t a = axis + 1; a < rank; ++a) {
    in_inner *= input[a];
    out_inner *= g.output[a];
  }
  for (int64_t i = 0; i < input[axis]; ++i) {
    const int64_t o = i * g.stride[axis] - g.pad_begin[axis] + tap[axis] * g.dilation[axis];
    if (o < 0 || o >= g.output[axis]) continue;
    const int64_t c = col_offset + i * in_inner;
    const int64_t p = out_offset + o * out_inner;
    if (axis + 1 == rank) {
      plane[p] += cols[c];
    } else {
      AddColumns(cols, plane, g, input, axis + 1, tap, c, p);
    }
  }
}

}  // namespace

ConvTransposeGeometry ResolveConvTransposeGeometry(const Attributes& attrs,
                                                   const std::vector<int64_t>& input,
                                                   const std::vector<int64_t>& kernel) {
  const size_t rank = input.size();
  ConvTransposeGeometry g;
  g.kernel = kernel;
  const std::vector<int64_t> shape_attr = attrs.get_ints("kernel_shape", {});
  if (!shape_attr.empty() && shape_attr != kernel) {
    ThrowKernelError(kOp, "attribute 'kernel_shape' does not match the weights");
  }
  g.stride = PerAxis(attrs, "strides", rank, 1);
  g.dilation = PerAxis(attrs, "dilations", rank, 1);
  const std::vector<int64_t> output_padding = PerAxis(attrs, "output_padding", rank, 0);
  for (size_t a = 0; a < rank; ++a) {
    if (g.stride[a] < 1 || g.dilation[a] < 1 || kernel[a] < 1) {
      ThrowKernelError(kOp, "strides, dilations and the kernel must be positive");
    }
    if (output_padding[a] < 0) ThrowKernelError(kOp, "'output_padding' must not be negative");
  }
  std::vector<int64_t> output_shape = attrs.get_ints("output_shape", {});
  if (output_shape.size() == rank + 2)
    output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != rank) {
    ThrowKernelError(kOp, "attribute 'output_shape' has " + std::to_string(output_shape.size()) +
                              " values, expected " + std::to_string(rank));
  }
  const std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  // The size the scatter reaches with no padding at all.
  auto natural = [&](size_t a) {
    return g.stride[a] * (input[a] - 1) + output_padding[a] + (kernel[a] - 1) * g.dilation[a] + 1;
  };
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    g.output = output_shape;
    if (g.output.empty()) {
      for (size_t a = 0; a < rank; ++a) g.output.push_back(input[a] * g.stride[a]);
    }
    for (size_t a = 0; a < rank; ++a) {
      const int64_t total = natural(a) - g.output[a];
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor division
      g.pad_begin.push_back(auto_pad == "SAME_UPPER" ? half : total - half);
      g.pad_end.push_back(auto_pad == "SAME_UPPER" ? total - half : half);
    }
  } else if (auto_pad == "NOTSET" || auto_pad == "VALID") {
    const std::vector<int64_t> pads = auto_pad == "VALID" ? std::vector<int64_t>(2 * rank, 0)
                                                          : PerAxis(attrs, "pads", rank, 0, 2);
    for (size_t a = 0; a < rank; ++a) {
      if (pads[a] < 0 || pads[a + rank] < 0) ThrowKernelError(kOp, "'pads' must not be negative");
      g.pad_begin.push_back(pads[a]);
      g.pad_end.push_back(pads[a + rank]);
      g.output.push_back(output_shape.empty() ? natural(a) - pads[a] - pads[a + rank]
                                              : output_shape[a]);
    }
  } else {
    ThrowKernelError(kOp,
                     "attribute 'auto_pad' must be NOTSET, SAME_UPPER, SAME_LOWER or VALID "
                     "(got '" +
                         auto_pad + "')");
  }
  for (int64_t o : g.output) {
    if (o < 1)
      ThrowKernelError(kOp, "the output size must be at least 1 (got " + std::to_string(o) + ")");
  }
  return g;
}

std::vector<Tensor> ConvTransposeKernel(const KernelContext& ctx, const Attributes& attrs,
                                        KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 2, 3);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  const Tensor& w = RequiredInput(kOp, inputs, 1, "W");
  const Tensor* b = OptionalInput(inputs, 2);
  CheckDType(kOp, "X", x, {DType::kFloat32});
  CheckDType(kOp, "W", w, {DType::kFloat32});
  const int rank = x.shape().rank() - 2;
  if (rank < 1 || w.shape().rank() != rank + 2) {
    ThrowKernelError(kOp,
                     "X must be [N, C, spatial...] and W [C, M/group, kernel...] of the same "
                     "rank (got X " +
                         x.shape().to_string() + ", W " + w.shape().to_string() + ")");
  }
  const int64_t group = attrs.get_int("group", 1);
  const int64_t n = x.shape().dim(0), c = x.shape().dim(1);
  if (group < 1 || c % group != 0 || w.shape().dim(0) != c) {
    ThrowKernelError(kOp, "W has " + std::to_string(w.shape().dim(0)) +
                              " input channels and group " + std::to_string(group) + "; X has " +
                              std::to_string(c) + " channels");
  }
  const int64_t mg = w.shape().dim(1), m = mg * group, cg = c / group;
  if (b) {
    CheckDType(kOp, "B", *b, {DType::kFloat32});
    if (b->shape().rank() != 1 || b->shape().dim(0) != m) {
      ThrowKernelError(
          kOp, "B must be [" + std::to_string(m) + "] (got " + b->shape().to_string() + ")");
    }
  }
  std::vector<int64_t> input, kernel;
  for (int a = 0; a < rank; ++a) {
    input.push_back(x.shape().dim(a + 2));
    kernel.push_back(w.shape().dim(a + 2));
  }
  const ConvTransposeGeometry g = ResolveConvTransposeGeometry(attrs, input, kernel);
  std::vector<int64_t> out_dims = {n, m};
  int64_t out_plane = 1, in_plane = 1, taps = 1;
  for (int a = 0; a < rank; ++a) {
    out_dims.push_back(g.output[a]);
    out_plane *= g.output[a];
    in_plane *= input[a];
    taps *= kernel[a];
  }
  Tensor y(DType::kFloat32, Shape(out_dims));  // zero-filled
  if (y.num_elements() == 0) return {y};
  float* out = y.data<float>();
  if (b) {
    for (int64_t i = 0; i < n * m; ++i)
      std::fill_n(out + i * out_plane, out_plane, b->data<float>()[i % m]);
  }
  if (x.num_elements() == 0) return {y};
  // cols: (M/G * taps) x in_plane per image and group.
  std::vector<float> cols(static_cast<size_t>(mg * taps * in_plane));
  for (int64_t img = 0; img < n; ++img) {
    for (int64_t grp = 0; grp < group; ++grp) {
      GemmArgs args;
      args.m = mg * taps;
      args.n = in_plane;
      args.k = cg;
      args.transpose_a = true;  // W_g is stored [cg, mg * taps]
      args.a = w.data<float>() + grp * cg * mg * taps;
      args.lda = mg * taps;
      args.b = x.data<float>() + (img * c + grp * cg) * in_plane;
      args.ldb = in_plane;
      args.c = cols.data();
      args.ldc = in_plane;
      f32_gemm(args, ctx.pool, ctx.isa);
      float* planes = out + (img * m + grp * mg) * out_plane;
      const double cost = static_cast<double>(taps * in_plane) * 0.5;
      threading::ParallelFor(ctx.pool, mg, cost, [&](int64_t begin, int64_t end) {
        std::vector<int64_t> tap(static_cast<size_t>(rank));
        for (int64_t ch = begin; ch < end; ++ch) {
          for (int64_t t = 0; t < taps; ++t) {
            int64_t rest = t;
            for (int a = rank - 1; a >= 0; --a) {
              tap[a] = rest % kernel[a];
              rest /= kernel[a];
            }
            AddColumns(cols.data() + (ch * taps + t) * in_plane, planes + ch * out_plane, g, input,
                       0, tap, 0, 0);
          }
        }
      });
    }
  }
  return {y};
}

}  // namespace loom::kernels
