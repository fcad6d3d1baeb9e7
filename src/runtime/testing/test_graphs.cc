#include "runtime/testing/test_graphs.h"

#include <random>
#include <string>
#include <vector>

namespace loom::runtime::testing {
namespace {

Tensor RandomWeights(Shape shape, uint32_t seed, float scale) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (float& v : values) v = uniform(engine);
  return Tensor::from_vector(std::move(shape), values);
}

Attributes Ints(const char* name, std::vector<int64_t> values) {
  return Attributes{{name, std::move(values)}};
}

}  // namespace

Graph TwoBranchGraph(int64_t rows, int64_t width, int depth) {
  GraphBuilder b("two_branches");
  const std::string x = b.input("x", DType::kFloat32, {rows, width});
  // Scaled so activations neither vanish nor blow up over many layers.
  const float scale = 1.7f / static_cast<float>(width);
  std::string branch_out[2];
  for (int branch = 0; branch < 2; ++branch) {
    const std::string prefix = branch == 0 ? "a_" : "b_";
    std::string value = x;
    for (int i = 0; i < depth; ++i) {
      const std::string w = b.constant(
          RandomWeights({width, width}, static_cast<uint32_t>(100 * branch + i), scale * 3));
      value = b.op("MatMul", {value, w}, {}, prefix + "matmul_" + std::to_string(i));
      // Abs, not an activation the optimizer would fuse into the MatMul:
      // the executor tests count the nodes they run.
      value = b.op("Abs", {value}, {}, prefix + "abs_" + std::to_string(i));
    }
    branch_out[branch] = value;
  }
  b.output(b.op("Add", {branch_out[0], branch_out[1]}, {}, "join"), "y");
  return b.build();
}

Graph ChainGraph(int length, int64_t elements) {
  GraphBuilder b("chain");
  std::string value = b.input("x", DType::kFloat32, {elements});
  const char* ops[] = {"Abs", "Neg", "Neg", "Relu"};
  for (int i = 0; i < length; ++i) value = b.op(ops[i % 4], {value}, {}, "n" + std::to_string(i));
  b.output(value, "y");
  return b.build();
}

Graph FanOutGraph(int width, int64_t elements) {
  GraphBuilder b("fan_out");
  const std::string x = b.input("x", DType::kFloat32, {elements});
  std::vector<std::string> branches;
  for (int i = 0; i < width; ++i)
    branches.push_back(b.op("Relu", {x}, {}, "r" + std::to_string(i)));
  b.output(b.op("Sum", branches, {}, "sum"), "y");
  return b.build();
}

Graph SmallConvNet() {
  GraphBuilder b("small_conv_net");
  const std::string x = b.input("x", DType::kFloat32, {"N", 3, 16, 16});
  auto conv = [&](const std::string& in, int64_t cin, int64_t cout, int64_t k, uint32_t seed) {
    const std::string w = b.constant(RandomWeights({cout, cin, k, k}, seed, 0.3f));
    const std::string bias = b.constant(RandomWeights({cout}, seed + 1000, 0.1f));
    const int64_t pad = k / 2;
    return b.op("Conv", {in, w, bias}, Ints("pads", {pad, pad, pad, pad}));
  };
  std::string stem = b.op("Relu", {conv(x, 3, 8, 3, 1)});
  stem = b.op("MaxPool", {stem},
              Attributes{{"kernel_shape", std::vector<int64_t>{2, 2}},
                         {"strides", std::vector<int64_t>{2, 2}}});
  // A residual block: two branches that the executor may run at once.
  const std::string main = conv(b.op("Relu", {conv(stem, 8, 8, 3, 2)}), 8, 8, 3, 3);
  const std::string shortcut = conv(stem, 8, 8, 1, 4);
  const std::string block = b.op("Relu", {b.op("Add", {main, shortcut})});
  const std::string pooled = b.op("Flatten", {b.op("GlobalAveragePool", {block})});
  // Two heads reading the same features.
  const std::string logits = b.op("Gemm", {pooled, b.constant(RandomWeights({8, 10}, 5, 0.5f)),
                                           b.constant(RandomWeights({10}, 6, 0.1f))});
  b.output(b.op("Softmax", {logits}, Attributes{{"axis", int64_t{1}}}), "logits");
  b.output(b.op("Tanh", {pooled}), "features");
  return b.build();
}

}  // namespace loom::runtime::testing
