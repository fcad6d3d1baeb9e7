#include "kernels/shape/shape_ops_data_reference.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "kernels/reference/element_access.h"

namespace loom::kernels {
namespace {

Tensor Int64Vector(const std::vector<int64_t>& values) {
  return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
}

// -1, 0, 1 comparing two doubles with NaN after every number.
int CompareValues(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) - std::isnan(b);
  return a < b ? -1 : (a > b ? 1 : 0);
}

double DetOf(const std::vector<double>& a, int64_t m) {
  if (m == 0) return 1.0;
  if (m == 1) return a[0];
  double det = 0.0;
  for (int64_t c = 0; c < m; ++c) {
    std::vector<double> minor;
    for (int64_t r = 1; r < m; ++r) {
      for (int64_t k = 0; k < m; ++k) {
        if (k != c) minor.push_back(a[r * m + k]);
      }
    }
    det += (c % 2 == 0 ? 1.0 : -1.0) * a[c] * DetOf(minor, m - 1);
  }
  return det;
}

}  // namespace

std::vector<Tensor> UniqueReference(const Tensor& x, std::optional<int> axis, bool sorted) {
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t n = axis ? dims[*axis] : x.num_elements();
  // The elements of slice i, in row-major order of X.
  auto slice = [&](int64_t i) {
    std::vector<double> values;
    for (int64_t e = 0; e < x.num_elements(); ++e) {
      if (axis ? Unravel(e, dims)[*axis] == i : e == i) values.push_back(ReadElementAsDouble(x, e));
    }
    return values;
  };
  auto compare = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (size_t j = 0; j < a.size(); ++j) {
      if (int c = CompareValues(a[j], b[j]); c != 0) return c;
    }
    return 0;
  };
  std::vector<int64_t> first, counts, inverse(n);
  std::vector<std::vector<double>> values;
  for (int64_t i = 0; i < n; ++i) {
    const std::vector<double> s = slice(i);
    size_t u = 0;
    while (u < values.size() && compare(values[u], s) != 0) ++u;
    if (u == values.size()) {
      values.push_back(s);
      first.push_back(i);
      counts.push_back(0);
    }
    ++counts[u];
    inverse[i] = static_cast<int64_t>(u);
  }
  const size_t k = values.size();
  std::vector<size_t> perm(k);  // perm[p] = unique in output position p
  for (size_t u = 0; u < k; ++u) perm[u] = u;
  if (sorted) {
    for (size_t p = 0; p < k; ++p) {
      size_t best = p;
      for (size_t q = p + 1; q < k; ++q) {
        if (compare(values[perm[q]], values[perm[best]]) < 0) best = q;
      }
      std::swap(perm[p], perm[best]);
    }
  }
  std::vector<int64_t> position(k), out_first(k), out_counts(k);
  for (size_t p = 0; p < k; ++p) {
    position[perm[p]] = static_cast<int64_t>(p);
    out_first[p] = first[perm[p]];
    out_counts[p] = counts[perm[p]];
  }
  for (int64_t& v : inverse) v = position[v];
  std::vector<int64_t> y_dims = {static_cast<int64_t>(k)};
  if (axis) {
    y_dims = dims;
    y_dims[*axis] = static_cast<int64_t>(k);
  }
  Tensor y(x.dtype(), Shape(y_dims));
  for (int64_t o = 0; o < y.num_elements(); ++o) {
    if (!axis) {
      CopyElement(x, out_first[o], y, o);
      continue;
    }
    std::vector<int64_t> index = Unravel(o, y_dims);
    index[*axis] = out_first[index[*axis]];
    CopyElement(x, Ravel(index, dims), y, o);
  }
  return {y, Int64Vector(out_first), Int64Vector(inverse), Int64Vector(out_counts)};
}

Tensor CenterCropPadReference(const Tensor& x, const std::vector<int64_t>& sizes,
                              const std::vector<int>& axes) {
  const std::vector<int64_t>& dims = x.shape().dims();
  std::vector<int64_t> out_dims = dims;
  std::vector<int64_t> shift(dims.size(), 0);  // input index = output index + shift
  for (size_t i = 0; i < axes.size(); ++i) {
    const int a = axes[i];
    out_dims[a] = sizes[i];
    shift[a] = dims[a] >= sizes[i] ? (dims[a] - sizes[i]) / 2 : -((sizes[i] - dims[a]) / 2);
  }
  Tensor out(x.dtype(), Shape(out_dims));
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    std::vector<int64_t> index = Unravel(o, out_dims);
    bool inside = true;
    for (size_t d = 0; d < dims.size(); ++d) {
      index[d] += shift[d];
      inside = inside && index[d] >= 0 && index[d] < dims[d];
    }
    if (inside) CopyElement(x, Ravel(index, dims), out, o);
  }
  return out;
}

Tensor Col2ImReference(const Tensor& x, const std::vector<int64_t>& image,
                       const std::vector<int64_t>& block, const std::vector<int64_t>& dilations,
                       const std::vector<int64_t>& pads, const std::vector<int64_t>& strides) {
  const size_t s = image.size();
  std::vector<int64_t> blocks(s);  // block positions per axis
  int64_t block_size = 1;
  for (size_t d = 0; d < s; ++d) {
    blocks[d] =
        (image[d] + pads[d] + pads[d + s] - (dilations[d] * (block[d] - 1) + 1)) / strides[d] + 1;
    block_size *= block[d];
  }
  const int64_t n = x.shape().dim(0), channels = x.shape().dim(1) / block_size;
  const int64_t positions = x.shape().dim(2);
  std::vector<int64_t> out_dims = {n, channels};
  out_dims.insert(out_dims.end(), image.begin(), image.end());
  Tensor out(x.dtype(), Shape(out_dims));
  int64_t plane = 1;
  for (int64_t d : image) plane *= d;
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    const std::vector<int64_t> pixel = Unravel(o % plane, image);
    const int64_t nc = o / plane;
    double sum = 0.0;
    bool any = false;
    for (int64_t k = 0; k < block_size; ++k) {
      const std::vector<int64_t> kk = Unravel(k, block);
      for (int64_t l = 0; l < positions; ++l) {
        const std::vector<int64_t> ll = Unravel(l, blocks);
        bool hit = true;
        for (size_t d = 0; d < s && hit; ++d) {
          hit = ll[d] * strides[d] - pads[d] + kk[d] * dilations[d] == pixel[d];
        }
        if (!hit) continue;
        const double v = ReadElementAsDouble(x, (nc * block_size + k) * positions + l);
        // Sum in the element type's precision, as the kernel does.
        if (x.dtype() == DType::kFloat32) {
          sum = static_cast<float>(static_cast<float>(sum) + static_cast<float>(v));
        } else {
          sum += v;
        }
        any = true;
      }
    }
    if (any) WriteElementFromDouble(out, o, sum);
  }
  return out;
}

Tensor TensorScatterReference(const Tensor& cache, const Tensor& update,
                              const std::vector<int64_t>& write, int axis, bool circular) {
  Tensor out(cache.dtype(), cache.shape());
  std::memcpy(out.raw_data(), cache.raw_data(),
              static_cast<size_t>(cache.num_elements()) * dtype_size(cache.dtype()));
  const std::vector<int64_t>& dims = cache.shape().dims();
  const int64_t max_seq = dims[axis];
  for (int64_t u = 0; u < update.num_elements(); ++u) {
    std::vector<int64_t> index = Unravel(u, update.shape().dims());
    index[axis] += write[index[0]];
    if (circular) index[axis] = ((index[axis] % max_seq) + max_seq) % max_seq;
    CopyElement(update, u, out, Ravel(index, dims));
  }
  return out;
}

Tensor ReverseSequenceReference(const Tensor& x, const std::vector<int64_t>& lens, int time_axis) {
  const int batch_axis = 1 - time_axis;
  Tensor out(x.dtype(), x.shape());
  for (int64_t o = 0; o < out.num_elements(); ++o) {
    std::vector<int64_t> index = Unravel(o, x.shape().dims());
    const int64_t len = lens[index[batch_axis]];
    if (index[time_axis] < len) index[time_axis] = len - 1 - index[time_axis];
    CopyElement(x, Ravel(index, x.shape().dims()), out, o);
  }
  return out;
}

Tensor MaxUnpoolReference(const Tensor& x, const Tensor& indices,
                          const std::vector<int64_t>& unpooled,
                          const std::vector<int64_t>& out_dims) {
  Tensor y(x.dtype(), Shape(unpooled));
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    CopyElement(x, i, y, ReadElementAsInt64(indices, i));
  }
  Tensor out(x.dtype(), Shape(out_dims));
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    CopyElement(y, i, out, Ravel(Unravel(i, unpooled), out_dims));
  }
  return out;
}

Tensor DetReference(const Tensor& x) {
  const std::vector<int64_t>& dims = x.shape().dims();
  const int64_t m = dims.back();
  Tensor out(x.dtype(), Shape(std::vector<int64_t>(dims.begin(), dims.end() - 2)));
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    std::vector<double> a(static_cast<size_t>(m * m));
    for (int64_t j = 0; j < m * m; ++j) a[j] = ReadElementAsDouble(x, i * m * m + j);
    WriteElementFromDouble(out, i, DetOf(a, m));
  }
  return out;
}

}  // namespace loom::kernels
