#include "kernels/pool/pool_reference.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/reference/element_access.h"
#include "kernels/spatial_geometry.h"

namespace loom::kernels {
namespace {

struct Window {
  SpatialGeometry g;
  int64_t planes;
  int64_t plane_size;
  int64_t out_plane_size;
};

Window MakeWindow(const Attributes& attrs, const Tensor& x, std::vector<int64_t>* out_dims) {
  const std::vector<int64_t>& dims = x.shape().dims();
  const std::vector<int64_t> spatial(dims.begin() + 2, dims.end());
  Window w{ResolveSpatialGeometry("reference", attrs, spatial, {},
                                  SpatialGeometryOptions{.allow_ceil_mode = true}),
           dims[0] * dims[1], 1, 1};
  *out_dims = {dims[0], dims[1]};
  for (int i = 0; i < w.g.rank(); ++i) {
    w.plane_size *= w.g.input[i];
    w.out_plane_size *= w.g.output[i];
    out_dims->push_back(w.g.output[i]);
  }
  return w;
}

// Advances a row-major multi-index over `sizes`; false after the last one.
bool Next(std::vector<int64_t>& index, const std::vector<int64_t>& sizes) {
  for (int i = static_cast<int>(index.size()) - 1; i >= 0; --i) {
    if (++index[i] < sizes[i]) return true;
    index[i] = 0;
  }
  return false;
}

double Lowest(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return -128;
    case DType::kUInt8:
      return 0;
    default:
      return -std::numeric_limits<double>::infinity();
  }
}

// Calls visit(in_plane_position, inside_input, inside_padded_input) for
// each window position of output `out` (a spatial multi-index), in
// row-major window order.
template <typename Visit>
void ForEachWindowPosition(const SpatialGeometry& g, const std::vector<int64_t>& out, Visit visit) {
  const int rank = g.rank();
  std::vector<int64_t> t(rank, 0), pos(rank);
  do {
    bool inside = true, inside_padded = true;
    for (int i = 0; i < rank; ++i) {
      pos[i] = out[i] * g.stride[i] - g.pad_begin[i] + t[i] * g.dilation[i];
      inside = inside && pos[i] >= 0 && pos[i] < g.input[i];
      inside_padded =
          inside_padded && pos[i] >= -g.pad_begin[i] && pos[i] < g.input[i] + g.pad_end[i];
    }
    visit(pos, inside, inside_padded);
  } while (Next(t, g.kernel));
}

int64_t RowMajor(const std::vector<int64_t>& pos, const std::vector<int64_t>& sizes) {
  int64_t index = 0;
  for (size_t i = 0; i < pos.size(); ++i) index = index * sizes[i] + pos[i];
  return index;
}

int64_t ColumnMajor(const std::vector<int64_t>& pos, const std::vector<int64_t>& sizes) {
  int64_t index = 0;
  for (size_t i = pos.size(); i-- > 0;) index = index * sizes[i] + pos[i];
  return index;
}

}  // namespace

std::vector<Tensor> MaxPoolReference(const Attributes& attrs, const Tensor& x) {
  std::vector<int64_t> out_dims;
  const Window w = MakeWindow(attrs, x, &out_dims);
  const bool column_major = attrs.get_int("storage_order", 0) == 1;
  Tensor y(x.dtype(), Shape(out_dims));
  Tensor indices(DType::kInt64, Shape(out_dims));
  if (w.out_plane_size == 0) return {y, indices};
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    std::vector<int64_t> out(w.g.rank(), 0);
    do {
      bool found = false;
      double best = Lowest(x.dtype());
      int64_t best_index = -1;
      ForEachWindowPosition(w.g, out, [&](const std::vector<int64_t>& pos, bool inside, bool) {
        if (!inside) return;
        const double v = ReadElementAsDouble(x, plane * w.plane_size + RowMajor(pos, w.g.input));
        // Greater wins; the first NaN wins and stays.
        if (!found || v > best || (std::isnan(v) && !std::isnan(best))) {
          found = true;
          best = v;
          best_index = plane * w.plane_size +
                       (column_major ? ColumnMajor(pos, w.g.input) : RowMajor(pos, w.g.input));
        }
      });
      const int64_t at = plane * w.out_plane_size + RowMajor(out, w.g.output);
      WriteElementFromDouble(y, at, best);
      indices.data<int64_t>()[at] = best_index;
    } while (Next(out, w.g.output));
  }
  return {y, indices};
}

Tensor AveragePoolReference(const Attributes& attrs, const Tensor& x) {
  std::vector<int64_t> out_dims;
  const Window w = MakeWindow(attrs, x, &out_dims);
  const bool count_include_pad = attrs.get_int("count_include_pad", 0) == 1;
  Tensor y(x.dtype(), Shape(out_dims));
  if (w.out_plane_size == 0) return y;
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    std::vector<int64_t> out(w.g.rank(), 0);
    do {
      double sum = 0;
      int64_t real = 0, padded = 0;
      ForEachWindowPosition(
          w.g, out, [&](const std::vector<int64_t>& pos, bool inside, bool inside_padded) {
            if (inside) {
              sum += ReadElementAsDouble(x, plane * w.plane_size + RowMajor(pos, w.g.input));
              ++real;
            }
            if (inside_padded) ++padded;
          });
      const int64_t divisor = count_include_pad ? padded : real;
      WriteElementFromDouble(y, plane * w.out_plane_size + RowMajor(out, w.g.output),
                             divisor == 0 ? 0.0 : sum / static_cast<double>(divisor));
    } while (Next(out, w.g.output));
  }
  return y;
}

namespace {

Tensor GlobalReference(const Tensor& x, bool max) {
  std::vector<int64_t> out_dims(x.shape().rank(), 1);
  out_dims[0] = x.shape().dim(0);
  out_dims[1] = x.shape().dim(1);
  Tensor y(x.dtype(), Shape(out_dims));
  const int64_t planes = out_dims[0] * out_dims[1];
  if (planes == 0) return y;
  const int64_t plane_size = x.num_elements() / planes;
  for (int64_t p = 0; p < planes; ++p) {
    double acc = ReadElementAsDouble(x, p * plane_size);
    for (int64_t i = 1; i < plane_size; ++i) {
      const double v = ReadElementAsDouble(x, p * plane_size + i);
      if (!max) {
        acc += v;
      } else if (v > acc || (std::isnan(v) && !std::isnan(acc))) {
        acc = v;
      }
    }
    WriteElementFromDouble(y, p, max ? acc : acc / static_cast<double>(plane_size));
  }
  return y;
}

}  // namespace

Tensor GlobalMaxPoolReference(const Tensor& x) { return GlobalReference(x, true); }
Tensor GlobalAveragePoolReference(const Tensor& x) { return GlobalReference(x, false); }

}  // namespace loom::kernels
