// ConvTranspose against the definition written as a plain scatter loop
// here (every input element times every tap added at o = i*s - pb + t*d),
// on random shapes covering groups, strides, dilations, pads,
// output_padding, output_shape, auto_pad and 1-D to 3-D; bit-identical
// across thread counts; a hand-computed case; errors.
#include "kernels/conv/conv_transpose.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/testing/kernel_test_util.h"

namespace loom::kernels {
namespace {

using testing::CallSingleOutput;

// The definition, in double.
Tensor Reference(const Tensor& x, const Tensor& w, const Tensor* b, const Attributes& attrs) {
  const int rank = x.shape().rank() - 2;
  std::vector<int64_t> input, kernel;
  for (int a = 0; a < rank; ++a) {
    input.push_back(x.shape().dim(a + 2));
    kernel.push_back(w.shape().dim(a + 2));
  }
  const ConvTransposeGeometry g = ResolveConvTransposeGeometry(attrs, input, kernel);
  const int64_t group = attrs.get_int("group", 1);
  const int64_t n = x.shape().dim(0), c = x.shape().dim(1), mg = w.shape().dim(1), cg = c / group;
  const int64_t m = mg * group;
  std::vector<int64_t> dims = {n, m};
  int64_t out_plane = 1, in_plane = 1, taps = 1;
  for (int a = 0; a < rank; ++a) {
    dims.push_back(g.output[a]);
    out_plane *= g.output[a];
    in_plane *= input[a];
    taps *= kernel[a];
  }
  std::vector<double> acc(static_cast<size_t>(n * m * out_plane), 0.0);
  for (int64_t img = 0; img < n; ++img) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const int64_t grp = ci / cg;
      for (int64_t mm = 0; mm < mg; ++mm) {
        for (int64_t i = 0; i < in_plane; ++i) {
          for (int64_t t = 0; t < taps; ++t) {
            int64_t irest = i, trest = t, o = 0, ok = 1;
            std::vector<int64_t> oi(rank);
            for (int a = rank - 1; a >= 0; --a) {
              const int64_t ia = irest % input[a], ta = trest % kernel[a];
              irest /= input[a];
              trest /= kernel[a];
              oi[a] = ia * g.stride[a] - g.pad_begin[a] + ta * g.dilation[a];
              if (oi[a] < 0 || oi[a] >= g.output[a]) ok = 0;
            }
            if (!ok) continue;
            for (int a = 0; a < rank; ++a) o = o * g.output[a] + oi[a];
            const double xv = x.data<float>()[(img * c + ci) * in_plane + i];
            const double wv = w.data<float>()[(ci * mg + mm) * taps + t];
            acc[(img * m + grp * mg + mm) * out_plane + o] += xv * wv;
          }
        }
      }
    }
  }
  Tensor out(DType::kFloat32, Shape(dims));
  for (int64_t k = 0; k < out.num_elements(); ++k) {
    const int64_t ch = (k / out_plane) % m;
    out.data<float>()[k] = static_cast<float>(acc[k] + (b ? b->data<float>()[ch] : 0.0));
  }
  return out;
}

struct Case {
  std::vector<int64_t> x, w;  // X [N, C, ...], W [C, M/group, ...]
  Attributes attrs;
  bool bias = true;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({{1, 3, 5, 5}, {3, 2, 3, 3}, {}});
  cases.push_back({{2, 4, 4, 6},
                   {4, 3, 3, 2},
                   Attributes()
                       .set("strides", std::vector<int64_t>{2, 3})
                       .set("pads", std::vector<int64_t>{1, 0, 0, 1})
                       .set("output_padding", std::vector<int64_t>{1, 2})});
  cases.push_back(
      {{1, 4, 5, 4},
       {4, 1, 3, 3},
       Attributes().set("group", int64_t{2}).set("dilations", std::vector<int64_t>{2, 1})});
  cases.push_back({{1, 2, 3, 3},
                   {2, 2, 3, 3},
                   Attributes()
                       .set("strides", std::vector<int64_t>{3, 2})
                       .set("output_shape", std::vector<int64_t>{10, 8})});
  cases.push_back({{1, 2, 4, 3},
                   {2, 3, 3, 3},
                   Attributes()
                       .set("strides", std::vector<int64_t>{2, 2})
                       .set("auto_pad", std::string("SAME_UPPER"))});
  cases.push_back({{1, 2, 4, 3},
                   {2, 3, 2, 3},
                   Attributes()
                       .set("strides", std::vector<int64_t>{2, 2})
                       .set("auto_pad", std::string("SAME_LOWER")),
                   false});
  cases.push_back({{2, 3, 7}, {3, 5, 4}, Attributes().set("strides", std::vector<int64_t>{3})});
  cases.push_back({{1, 2, 3, 2, 3},
                   {2, 2, 2, 3, 2},
                   Attributes()
                       .set("strides", std::vector<int64_t>{2, 1, 2})
                       .set("pads", std::vector<int64_t>{0, 1, 0, 1, 0, 1})});
  return cases;
}

TEST(ConvTranspose, MatchesTheDefinitionAtEveryThreadCountAndIsa) {
  uint32_t seed = 1;
  for (const Case& c : Cases()) {
    const Tensor x = testing::RandomTensor(DType::kFloat32, Shape(c.x), seed++);
    const Tensor w = testing::RandomTensor(DType::kFloat32, Shape(c.w), seed++);
    const Tensor b = testing::RandomTensor(DType::kFloat32,
                                           Shape({c.w[1] * c.attrs.get_int("group", 1)}), seed++);
    const Tensor expected = Reference(x, w, c.bias ? &b : nullptr, c.attrs);
    for (Isa isa : testing::SupportedIsas()) {
      Tensor first;
      for (int threads : testing::kThreadCounts) {
        auto pool = testing::PoolWithThreads(threads);
        const Tensor y =
            c.bias ? CallSingleOutput(ConvTransposeKernel, {&x, &w, &b}, c.attrs, pool.get(), isa)
                   : CallSingleOutput(ConvTransposeKernel, {&x, &w}, c.attrs, pool.get(), isa);
        const std::string mismatch = testing::CompareTensors(y, expected, 1e-5, 1e-5);
        EXPECT_TRUE(mismatch.empty()) << Shape(c.x).to_string() << " isa " << IsaName(isa)
                                      << " threads " << threads << ": " << mismatch;
        if (threads == 1) first = y;
        EXPECT_TRUE(testing::BitwiseEqual(y, first)) << "differs across thread counts";
      }
    }
  }
}

TEST(ConvTranspose, HandComputed) {
  // 1-D, x [1 2], w [1 10 100], stride 2: x0 lands at 0..2, x1 at 2..4:
  // [1, 10, 100 + 2, 20, 200].
  const Tensor x = Tensor::from_vector<float>({1, 1, 2}, {1, 2});
  const Tensor w = Tensor::from_vector<float>({1, 1, 3}, {1, 10, 100});
  const Tensor y = CallSingleOutput(ConvTransposeKernel, {&x, &w},
                                    Attributes().set("strides", std::vector<int64_t>{2}));
  EXPECT_EQ(y.shape(), Shape({1, 1, 5}));
  EXPECT_EQ(testing::TensorValues<float>(y), (std::vector<float>{1, 10, 102, 20, 200}));
}

TEST(ConvTranspose, ErrorsNameTheProblem) {
  const Tensor x = Tensor(DType::kFloat32, Shape({1, 3, 4, 4}));
  const Tensor w = Tensor(DType::kFloat32, Shape({2, 2, 3, 3}));
  EXPECT_NE(testing::KernelErrorOf(ConvTransposeKernel, {&x, &w}).find("channels"),
            std::string::npos);
  const Tensor w3 = Tensor(DType::kFloat32, Shape({3, 2, 3, 3}));
  const Tensor bad_bias = Tensor(DType::kFloat32, Shape({3}));
  EXPECT_NE(testing::KernelErrorOf(ConvTransposeKernel, {&x, &w3, &bad_bias}).find("B must be"),
            std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(ConvTransposeKernel, {&x, &w3},
                                   Attributes().set("strides", std::vector<int64_t>{1}))
                .find("strides"),
            std::string::npos);
  EXPECT_NE(testing::KernelErrorOf(ConvTransposeKernel, {&x, &w3},
                                   Attributes().set("pads", std::vector<int64_t>{4, 4, 4, 4}))
                .find("at least 1"),
            std::string::npos);
  const Tensor ints = Tensor(DType::kInt32, Shape({1, 3, 4, 4}));
  EXPECT_NE(testing::KernelErrorOf(ConvTransposeKernel, {&ints, &w3}).find("int32"),
            std::string::npos);
}

}  // namespace
}  // namespace loom::kernels
