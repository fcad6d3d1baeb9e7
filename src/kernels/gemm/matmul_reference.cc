// MatMul and Gemm as plain loops, float results accumulated in double: the
// oracles for matmul.cc.
#include <string>

#include "kernels/fused_activation.h"
#include "kernels/gemm/matmul.h"
#include "kernels/gemm/matmul_shapes.h"
#include "kernels/reference/element_access.h"

namespace loom::kernels {
namespace {}  // namespace

// Integer results are exact only while they fit a double's 53 bits; the
// tests keep their values small.
Tensor MatMulReference(const Tensor& a, const Tensor& b) {
  const MatMulShapes s = ResolveMatMulShapes("MatMul", a.shape(), b.shape());
  Tensor y(a.dtype(), Shape(s.output));
  for (size_t batch = 0; batch < s.a_offset.size(); ++batch) {
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          sum += ReadElementAsDouble(a, s.a_offset[batch] + i * s.k + p) *
                 ReadElementAsDouble(b, s.b_offset[batch] + p * s.n + j);
        }
        WriteElementFromDouble(y, static_cast<int64_t>(batch) * s.m * s.n + i * s.n + j, sum);
      }
    }
  }
  return y;
}

Tensor GemmReference(const Attributes& attrs, const Tensor& a, const Tensor& b, const Tensor* c) {
  const bool ta = attrs.get_int("transA", 0) != 0, tb = attrs.get_int("transB", 0) != 0;
  const double alpha = attrs.get_float("alpha", 1.0f), beta = attrs.get_float("beta", 1.0f);
  const int64_t m = a.shape().dim(ta ? 1 : 0), k = a.shape().dim(ta ? 0 : 1);
  const int64_t n = b.shape().dim(tb ? 0 : 1);
  const Activation activation = FusedActivationFromAttributes("Gemm", attrs);
  Tensor y(DType::kFloat32, {m, n});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += ReadElementAsDouble(a, ta ? p * m + i : i * k + p) *
               ReadElementAsDouble(b, tb ? j * k + p : p * n + j);
      }
      double out = alpha * sum;
      if (c != nullptr && c->num_elements() > 0) {
        const std::vector<int64_t>& d = c->shape().dims();
        const int64_t ci = d.size() == 2 && d[0] != 1 ? i : 0;
        const int64_t cj = !d.empty() && d.back() != 1 ? j : 0;
        out += beta * ReadElementAsDouble(*c, ci * (d.empty() ? 1 : d.back()) + cj);
      }
      y.data<float>()[i * n + j] = ActivationReference(activation, static_cast<float>(out));
    }
  }
  return y;
}

}  // namespace loom::kernels
