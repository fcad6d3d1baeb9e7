// Einsum (einsum.h): diagonals and lone sums per operand, then pairwise
// contractions as batched matrix products, then the output transpose.
#include "kernels/einsum/einsum.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/gemm/gemm.h"

namespace loom::kernels {
namespace {

constexpr std::string_view kOp = "Einsum";
// Intermediate operands are held in vectors; this bounds each one.
constexpr int64_t kMaxElements = int64_t{1} << 31;

template <typename T>
struct Operand {
  std::vector<int> labels;
  std::vector<int64_t> dims;
  std::vector<T> data;
};

// Wrapping arithmetic for integers (signed overflow is undefined in C++).
template <typename T>
T MulAdd(T acc, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(acc) + static_cast<U>(a) * static_cast<U>(b));
  } else {
    return acc + a * b;
  }
}
template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

int64_t CheckedCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > kMaxElements / d) {
      ThrowKernelError(kOp, "an intermediate result would exceed 2^31 elements");
    }
    n *= d;
  }
  return n;
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Calls fn(out_index, in_offset) for every element of `out_dims`, with
// in_offset = sum of index[a] * in_strides[a].
template <typename Fn>
void ForEachIndex(const std::vector<int64_t>& out_dims, const std::vector<int64_t>& in_strides,
                  Fn&& fn) {
  const int64_t total = CheckedCount(out_dims);
  if (total == 0) return;
  std::vector<int64_t> idx(out_dims.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    fn(i, offset);
    for (size_t a = out_dims.size(); a-- > 0;) {
      offset += in_strides[a];
      if (++idx[a] < out_dims[a]) break;
      offset -= in_strides[a] * out_dims[a];
      idx[a] = 0;
    }
  }
}

// Transpose (and broadcast: a size-1 axis read with stride 0 into
// `sizes[label]`) into the given label order.
template <typename T>
Operand<T> Arrange(const Operand<T>& in, const std::vector<int>& order,
                   const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> strides = Strides(in.dims);
  Operand<T> out;
  out.labels = order;
  std::vector<int64_t> read;
  for (int label : order) {
    const auto a = static_cast<size_t>(std::find(in.labels.begin(), in.labels.end(), label) -
                                       in.labels.begin());
    const int64_t size = sizes[static_cast<size_t>(label)];
    out.dims.push_back(size);
    read.push_back(in.dims[a] == size ? strides[a] : 0);
  }
  out.data.resize(static_cast<size_t>(CheckedCount(out.dims)));
  ForEachIndex(out.dims, read, [&](int64_t i, int64_t o) { out.data[i] = in.data[o]; });
  return out;
}

// Takes the diagonal of repeated labels and sums the labels in `drop`.
template <typename T>
Operand<T> Reduce(const Operand<T>& in, const std::vector<bool>& keep) {
  const std::vector<int64_t> strides = Strides(in.dims);
  std::vector<int> labels;
  std::vector<int64_t> dims, stride_of;
  for (size_t a = 0; a < in.labels.size(); ++a) {
    auto it = std::find(labels.begin(), labels.end(), in.labels[a]);
    if (it != labels.end()) {
      stride_of[it - labels.begin()] += strides[a];  // a diagonal: one index for both axes
    } else {
      labels.push_back(in.labels[a]);
      dims.push_back(in.dims[a]);
      stride_of.push_back(strides[a]);
    }
  }
  // Kept labels first (the result), summed ones after (inner loop).
  Operand<T> out;
  std::vector<int64_t> out_strides, sum_dims, sum_strides;
  for (size_t a = 0; a < labels.size(); ++a) {
    if (keep[static_cast<size_t>(labels[a])]) {
      out.labels.push_back(labels[a]);
      out.dims.push_back(dims[a]);
      out_strides.push_back(stride_of[a]);
    } else {
      sum_dims.push_back(dims[a]);
      sum_strides.push_back(stride_of[a]);
    }
  }
  out.data.assign(static_cast<size_t>(CheckedCount(out.dims)), T{});
  ForEachIndex(out.dims, out_strides, [&](int64_t i, int64_t base) {
    T acc{};
    ForEachIndex(sum_dims, sum_strides,
                 [&](int64_t, int64_t o) { acc = Add(acc, in.data[base + o]); });
    out.data[i] = acc;
  });
  return out;
}

template <typename T>
void BatchedMatMul(const KernelContext& ctx, const T* a, const T* b, T* c, int64_t batch, int64_t m,
                   int64_t k, int64_t n) {
  for (int64_t i = 0; i < batch; ++i) {
    const T* ai = a + i * m * k;
    const T* bi = b + i * k * n;
    T* ci = c + i * m * n;
    if constexpr (std::is_same_v<T, float>) {
      GemmArgs args;
      args.m = m, args.n = n, args.k = k;
      args.a = ai, args.lda = std::max<int64_t>(k, 1);
      args.b = bi, args.ldb = std::max<int64_t>(n, 1);
      args.c = ci, args.ldc = std::max<int64_t>(n, 1);
      if (m > 0 && n > 0) {
        if (k == 0) {
          std::fill(ci, ci + m * n, 0.0f);
        } else {
          f32_gemm(args, ctx.pool, ctx.isa);
        }
      }
    } else {
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t col = 0; col < n; ++col) {
          T acc{};
          for (int64_t j = 0; j < k; ++j) acc = MulAdd(acc, ai[r * k + j], bi[j * n + col]);
          ci[r * n + col] = acc;
        }
      }
    }
  }
}

template <typename T>
Tensor Run(const KernelContext& ctx, const einsum::Equation& eq,
           const std::vector<const Tensor*>& inputs, const std::vector<int64_t>& sizes) {
  const size_t num_labels = sizes.size();
  std::vector<Operand<T>> ops;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Operand<T> op;
    op.labels = eq.inputs[i];
    op.dims = inputs[i]->shape().dims();
    const T* p = inputs[i]->data<T>();
    op.data.assign(p, p + inputs[i]->num_elements());
    ops.push_back(std::move(op));
  }
  auto uses = [&](size_t from, int label) {
    if (std::find(eq.output.begin(), eq.output.end(), label) != eq.output.end()) return true;
    for (size_t j = from; j < ops.size(); ++j) {
      if (std::find(ops[j].labels.begin(), ops[j].labels.end(), label) != ops[j].labels.end()) {
        return true;
      }
    }
    return false;
  };
  // Labels still needed after operand i: the output's and later operands'.
  auto needed_after = [&](size_t i) {
    std::vector<bool> keep(num_labels, false);
    for (size_t l = 0; l < num_labels; ++l) keep[l] = uses(i + 1, static_cast<int>(l));
    return keep;
  };
  auto has = [](const Operand<T>& op, int label) {
    return std::find(op.labels.begin(), op.labels.end(), label) != op.labels.end();
  };
  // Diagonals, and the labels only this operand has, summed.
  for (size_t i = 0; i < ops.size(); ++i) {
    std::vector<bool> keep(num_labels, false);
    for (size_t l = 0; l < num_labels; ++l) {
      const int label = static_cast<int>(l);
      if (!has(ops[i], label)) continue;
      keep[l] = std::find(eq.output.begin(), eq.output.end(), label) != eq.output.end();
      for (size_t j = 0; j < ops.size() && !keep[l]; ++j) {
        if (j != i && has(ops[j], label)) keep[l] = true;
      }
    }
    ops[i] = Reduce(ops[i], keep);
  }
  Operand<T> cur = std::move(ops[0]);
  for (size_t i = 1; i < ops.size(); ++i) {
    const std::vector<bool> keep = needed_after(i);
    Operand<T>& b = ops[i];
    std::vector<int> batch, m_labels, k_labels, n_labels;
    for (int label : cur.labels) {
      if (has(b, label)) {
        (keep[static_cast<size_t>(label)] ? batch : k_labels).push_back(label);
      } else {
        m_labels.push_back(label);
      }
    }
    for (int label : b.labels) {
      if (!has(cur, label)) n_labels.push_back(label);
    }
    auto product = [&](const std::vector<int>& labels) {
      int64_t p = 1;
      for (int l : labels) p *= sizes[static_cast<size_t>(l)];
      return p;
    };
    std::vector<int> a_order = batch, b_order = batch;
    a_order.insert(a_order.end(), m_labels.begin(), m_labels.end());
    a_order.insert(a_order.end(), k_labels.begin(), k_labels.end());
    b_order.insert(b_order.end(), k_labels.begin(), k_labels.end());
    b_order.insert(b_order.end(), n_labels.begin(), n_labels.end());
    const Operand<T> a_arr = Arrange(cur, a_order, sizes);
    const Operand<T> b_arr = Arrange(b, b_order, sizes);
    Operand<T> c;
    c.labels = batch;
    c.labels.insert(c.labels.end(), m_labels.begin(), m_labels.end());
    c.labels.insert(c.labels.end(), n_labels.begin(), n_labels.end());
    for (int l : c.labels) c.dims.push_back(sizes[static_cast<size_t>(l)]);
    c.data.resize(static_cast<size_t>(CheckedCount(c.dims)));
    BatchedMatMul(ctx, a_arr.data.data(), b_arr.data.data(), c.data.data(), product(batch),
                  product(m_labels), product(k_labels), product(n_labels));
    cur = std::move(c);
    b.data.clear();
  }
  const Operand<T> out = Arrange(cur, eq.output, sizes);
  Tensor result = Tensor::uninitialized(inputs[0]->dtype(), Shape(out.dims));
  if (!out.data.empty()) {
    std::memcpy(result.raw_data(), out.data.data(), out.data.size() * sizeof(T));
  }
  return result;
}

}  // namespace

std::vector<Tensor> EinsumKernel(const KernelContext& ctx, const Attributes& attrs,
                                 KernelInputs inputs) {
  CheckInputCount(kOp, inputs, 1, 64);
  std::vector<const Tensor*> tensors;
  std::vector<int> ranks;
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = RequiredInput(kOp, inputs, i, "Inputs");
    if (t.dtype() != inputs[0]->dtype()) {
      ThrowKernelError(kOp, "input " + std::to_string(i) + " has dtype " +
                                std::string(dtype_name(t.dtype())) + " but input 0 has " +
                                std::string(dtype_name(inputs[0]->dtype())));
    }
    tensors.push_back(&t);
    ranks.push_back(t.shape().rank());
    dims.push_back(t.shape().dims());
  }
  CheckDType(kOp, "Inputs", *tensors[0],
             {DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16, DType::kInt32,
              DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64});
  const einsum::Equation eq = einsum::ParseEquation(attrs.get_string("equation"), ranks);
  const std::vector<int64_t> sizes = einsum::LabelSizes(eq, dims);
  return {VisitDType(tensors[0]->dtype(), [&](auto tag) -> Tensor {
    using T = decltype(tag);
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      return Run<T>(ctx, eq, tensors, sizes);
    } else {
      ThrowKernelError(kOp, "dtype is not supported");
    }
  })};
}

}  // namespace loom::kernels
