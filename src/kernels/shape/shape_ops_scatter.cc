// ScatterND and ScatterElements: a copy of `data`, then every update
// combined into its target in row-major order of the updates. Indices are
// checked and resolved to element offsets in one serial pass first, so a
// bad index is an error before anything is written.
//
// Determinism: two updates can only meet on the same target when they
// share everything but the indexed part, so the work is split where no two
// units share a target, and each unit applies its updates in the serial
// order: ScatterND over columns of the slice (every tuple, in order, for a
// block of columns), ScatterElements over lines along the axis. Results are
// the serial loop's at any thread count, duplicate indices included.
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_util.h"
#include "loom/bfloat16.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction ParseReduction(std::string_view op, const Attributes& attrs) {
  const std::string name = attrs.get_string("reduction", "none");
  if (name == "none") return Reduction::kNone;
  if (name == "add") return Reduction::kAdd;
  if (name == "mul") return Reduction::kMul;
  if (name == "max") return Reduction::kMax;
  if (name == "min") return Reduction::kMin;
  ThrowKernelError(op,
                   "attribute 'reduction' must be none, add, mul, max or min (got '" + name + "')");
}

// f(target, update) for one reduction, as NumPy computes it per element.
template <typename T, Reduction kR>
T Combine(T target, T update) {
  if constexpr (kR == Reduction::kNone) {
    return update;
  } else if constexpr (std::is_same_v<T, bool>) {
    // NumPy's bool ufuncs: add and maximum are OR, multiply and minimum AND.
    return kR == Reduction::kAdd || kR == Reduction::kMax ? (target || update) : (target && update);
  } else if constexpr ((std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)) {
    return T(Combine<float, kR>(static_cast<float>(target), static_cast<float>(update)));
  } else if constexpr (std::is_integral_v<T>) {
    // Wrap around (two's complement) instead of signed overflow; unsigned
    // is at least `unsigned int` wide so uint8 * uint8 cannot promote to int.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    if constexpr (kR == Reduction::kAdd) {
      return static_cast<T>(static_cast<U>(target) + static_cast<U>(update));
    } else if constexpr (kR == Reduction::kMul) {
      return static_cast<T>(static_cast<U>(target) * static_cast<U>(update));
    } else if constexpr (kR == Reduction::kMax) {
      return update > target ? update : target;
    } else {
      return update < target ? update : target;
    }
  } else {
    if constexpr (kR == Reduction::kAdd) return target + update;
    if constexpr (kR == Reduction::kMul) return target * update;
    // np.maximum / np.minimum: a NaN on either side is the result.
    if (std::isnan(target)) return target;
    if (std::isnan(update)) return update;
    if constexpr (kR == Reduction::kMax) return update > target ? update : target;
    return update < target ? update : target;
  }
}

// Calls fn.template operator()<T, kR>() for the dtype and reduction.
template <typename Fn>
void VisitScatter(DType dtype, Reduction reduction, Fn&& fn) {
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    switch (reduction) {
      case Reduction::kNone:
        return fn.template operator()<T, Reduction::kNone>();
      case Reduction::kAdd:
        return fn.template operator()<T, Reduction::kAdd>();
      case Reduction::kMul:
        return fn.template operator()<T, Reduction::kMul>();
      case Reduction::kMax:
        return fn.template operator()<T, Reduction::kMax>();
      case Reduction::kMin:
        return fn.template operator()<T, Reduction::kMin>();
    }
  });
}

// Guess: one read-combine-write of a scattered element, ~2 ns.
constexpr double kScatterNsPerElement = 2.0;
// Columns of a ScatterND slice per unit: 4096 elements keep a unit's work
// well above the pool's wake-up cost without starving threads.
constexpr int64_t kColumnBlock = 4096;

void CheckSameDType(std::string_view op, const Tensor& data, const Tensor& updates) {
  if (updates.dtype() != data.dtype()) {
    ThrowKernelError(op, "input 'updates' has dtype " + std::string(dtype_name(updates.dtype())) +
                             ", expected " + std::string(dtype_name(data.dtype())) +
                             " (the dtype of 'data')");
  }
}

}  // namespace

std::vector<Tensor> ScatterNDKernel(const KernelContext& ctx, const Attributes& attrs,
                                    KernelInputs inputs) {
  constexpr std::string_view kOp = "ScatterND";
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const Tensor& indices = RequiredInput(kOp, inputs, 1, "indices");
  const Tensor& updates = RequiredInput(kOp, inputs, 2, "updates");
  const Reduction reduction = ParseReduction(kOp, attrs);
  CheckSameDType(kOp, data, updates);
  CheckDType(kOp, "indices", indices, {DType::kInt64, DType::kInt32});
  if (data.shape().rank() == 0) {
    ThrowKernelError(kOp, "input 'data' must have rank >= 1 (got shape [])");
  }
  if (indices.shape().rank() == 0) {
    ThrowKernelError(kOp, "input 'indices' must have rank >= 1 (got shape [])");
  }
  int64_t slice = 1;
  const std::vector<int64_t> offsets =
      shape_ops::IndexTupleOffsets(kOp, data.shape(), indices, 0, &slice);
  const std::vector<int64_t>& index_dims = indices.shape().dims();
  std::vector<int64_t> expected(index_dims.begin(), index_dims.end() - 1);
  expected.insert(expected.end(), data.shape().dims().begin() + index_dims.back(),
                  data.shape().dims().end());
  if (updates.shape().dims() != expected) {
    ThrowKernelError(kOp, "input 'updates' has shape " + updates.shape().to_string() +
                              ", expected " + Shape(expected).to_string() +
                              " (indices.shape[:-1] + data.shape[k:])");
  }
  Tensor output = data.clone();
  const auto count = static_cast<int64_t>(offsets.size());
  if (count == 0 || slice == 0) return {output};

  const int64_t blocks = (slice + kColumnBlock - 1) / kColumnBlock;
  VisitScatter(data.dtype(), reduction, [&]<typename T, Reduction kR>() {
    const T* upd = updates.data<T>();
    T* out = output.data<T>();
    // Serial loop replaced: for (t < count) for (c < slice)
    //   out[offsets[t] + c] = f(out[offsets[t] + c], upd[t * slice + c]);
    // split over column blocks, each running every t in order.
    threading::ParallelFor(
        ctx.pool, blocks,
        static_cast<double>(count * std::min(slice, kColumnBlock)) * kScatterNsPerElement,
        [&](int64_t begin, int64_t end) {
          for (int64_t block = begin; block < end; ++block) {
            const int64_t c0 = block * kColumnBlock;
            const int64_t c1 = std::min(slice, c0 + kColumnBlock);
            for (int64_t t = 0; t < count; ++t) {
              T* target = out + offsets[static_cast<size_t>(t)];
              const T* source = upd + t * slice;
              for (int64_t c = c0; c < c1; ++c) target[c] = Combine<T, kR>(target[c], source[c]);
            }
          }
        });
  });
  return {output};
}

std::vector<Tensor> ScatterElementsKernel(const KernelContext& ctx, const Attributes& attrs,
                                          KernelInputs inputs) {
  constexpr std::string_view kOp = "ScatterElements";
  CheckInputCount(kOp, inputs, 3, 3);
  const Tensor& data = RequiredInput(kOp, inputs, 0, "data");
  const Tensor& indices = RequiredInput(kOp, inputs, 1, "indices");
  const Tensor& updates = RequiredInput(kOp, inputs, 2, "updates");
  const Reduction reduction = ParseReduction(kOp, attrs);
  CheckSameDType(kOp, data, updates);
  const int rank = data.shape().rank();
  if (rank == 0) ThrowKernelError(kOp, "input 'data' must have rank >= 1 (got shape [])");
  const int axis = NormalizeAxis(kOp, attrs.get_int("axis", 0), rank);
  if (!(updates.shape() == indices.shape())) {
    ThrowKernelError(kOp, "inputs 'indices' " + indices.shape().to_string() + " and 'updates' " +
                              updates.shape().to_string() + " must have the same shape");
  }
  CheckRank(kOp, "indices", indices, rank);
  const std::vector<int64_t>& dims = data.shape().dims();
  const std::vector<int64_t>& u_dims = updates.shape().dims();
  for (int d = 0; d < rank; ++d) {
    if (d != axis && u_dims[d] > dims[d]) {
      ThrowKernelError(kOp, "input 'indices' shape " + indices.shape().to_string() +
                                " exceeds 'data' shape " + data.shape().to_string() + " on axis " +
                                std::to_string(d));
    }
  }
  std::vector<int64_t> index = shape_ops::ReadIndexTensor(kOp, "indices", indices);
  const int64_t dim = dims[axis];
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] < -dim || index[i] >= dim) {
      ThrowKernelError(kOp, "index " + std::to_string(index[i]) + " at position " +
                                std::to_string(i) + " of 'indices' is out of range [" +
                                std::to_string(-dim) + ", " + std::to_string(dim) + ") for axis " +
                                std::to_string(axis) + " of 'data' shape " +
                                data.shape().to_string());
    }
    if (index[i] < 0) index[i] += dim;
  }
  Tensor output = data.clone();
  if (updates.num_elements() == 0) return {output};

  // Lines: every coordinate of `updates` but the axis one. A line's updates
  // all land in one line of `data` along the axis.
  const std::vector<int64_t> d_strides = shape_ops::DenseStrides(data.shape());
  const std::vector<int64_t> u_strides = shape_ops::DenseStrides(updates.shape());
  const int64_t length = u_dims[axis];
  const int64_t lines = updates.num_elements() / length;
  VisitScatter(data.dtype(), reduction, [&]<typename T, Reduction kR>() {
    const T* upd = updates.data<T>();
    T* out = output.data<T>();
    // Serial loop replaced: for each line, for (i < length) in order:
    //   out[line's data base + index * d_stride] = f(..., upd[line's base + i * u_stride]).
    threading::ParallelFor(ctx.pool, lines, static_cast<double>(length) * kScatterNsPerElement,
                           [&](int64_t begin, int64_t end) {
                             for (int64_t line = begin; line < end; ++line) {
                               int64_t d_base = 0, u_base = 0, rest = line;
                               for (int d = rank - 1; d >= 0; --d) {
                                 if (d == axis) continue;
                                 const int64_t i = rest % u_dims[d];
                                 rest /= u_dims[d];
                                 d_base += i * d_strides[d];
                                 u_base += i * u_strides[d];
                               }
                               for (int64_t i = 0; i < length; ++i) {
                                 const int64_t u = u_base + i * u_strides[axis];
                                 T& target =
                                     out[d_base + index[static_cast<size_t>(u)] * d_strides[axis]];
                                 target = Combine<T, kR>(target, upd[u]);
                               }
                             }
                           });
  });
  return {output};
}

}  // namespace loom::kernels
