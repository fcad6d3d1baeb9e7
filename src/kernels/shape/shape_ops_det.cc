// Det: Gaussian elimination with partial pivoting (the LU factorization
// LAPACK's getrf, which NumPy and ONNX Runtime call) in double precision,
// one matrix per task; the determinant is the product of the pivots, its
// sign flipped per row swap.
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/dtype_visit.h"
#include "kernels/shape/shape_ops_data.h"
#include "threading/parallel_for.h"

namespace loom::kernels {
namespace {

template <typename T>
double Widen(T value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<double>(static_cast<float>(value));
  } else {
    return static_cast<double>(value);
  }
}

// float16 and bfloat16 through float: double -> float -> half can round
// twice, within Det's tolerance.
template <typename T>
T Narrow(double value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

template <typename T>
void Determinants(const KernelContext& ctx, const T* in, T* out, int64_t count, int64_t m) {
  // Serial loop replaced: for each matrix i: out[i] = det(in[i]).
  threading::ParallelFor(ctx.pool, count, static_cast<double>(m * m * m) * 0.5 + 10.0,
                         [&](int64_t begin, int64_t end) {
                           std::vector<double> a(static_cast<size_t>(m * m));
                           for (int64_t i = begin; i < end; ++i) {
                             const T* src = in + i * m * m;
                             for (int64_t j = 0; j < m * m; ++j) a[j] = Widen(src[j]);
                             double det = 1.0;
                             for (int64_t c = 0; c < m; ++c) {
                               int64_t pivot = c;
                               for (int64_t r = c + 1; r < m; ++r) {
                                 if (std::fabs(a[r * m + c]) > std::fabs(a[pivot * m + c]))
                                   pivot = r;
                               }
                               if (a[pivot * m + c] == 0.0) {
                                 det = 0.0;
                                 break;
                               }
                               if (pivot != c) {
                                 for (int64_t k = 0; k < m; ++k)
                                   std::swap(a[c * m + k], a[pivot * m + k]);
                                 det = -det;
                               }
                               const double p = a[c * m + c];
                               det *= p;
                               for (int64_t r = c + 1; r < m; ++r) {
                                 const double f = a[r * m + c] / p;
                                 for (int64_t k = c + 1; k < m; ++k)
                                   a[r * m + k] -= f * a[c * m + k];
                               }
                             }
                             out[i] = Narrow<T>(det);
                           }
                         });
}

}  // namespace

std::vector<Tensor> DetKernel(const KernelContext& ctx, const Attributes& /*attrs*/,
                              KernelInputs inputs) {
  constexpr std::string_view kOp = "Det";
  CheckInputCount(kOp, inputs, 1, 1);
  const Tensor& x = RequiredInput(kOp, inputs, 0, "X");
  CheckDType(kOp, "X", x, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16});
  const int rank = x.shape().rank();
  if (rank < 2 || x.shape().dim(rank - 1) != x.shape().dim(rank - 2)) {
    ThrowKernelError(kOp,
                     "input 'X' must be [..., M, M] (got shape " + x.shape().to_string() + ")");
  }
  const std::vector<int64_t>& dims = x.shape().dims();
  Tensor out =
      Tensor::uninitialized(x.dtype(), Shape(std::vector<int64_t>(dims.begin(), dims.end() - 2)));
  const int64_t m = dims[rank - 1];
  if (out.num_elements() == 0) return {out};
  VisitDType(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      Determinants(ctx, x.data<T>(), out.data<T>(), out.num_elements(), m);
    }
  });
  return {out};
}

}  // namespace loom::kernels
