#include "demo_network.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace loom::cli {
namespace {

// Uniform in ±sqrt(6 / fan_in) (He initialization): activations keep their
// scale through the stack, so the softmax neither saturates nor flattens.
Tensor RandomWeights(Shape shape, int64_t fan_in, uint32_t seed) {
  std::mt19937 engine(seed);
  const float bound = std::sqrt(6.0f / static_cast<float>(fan_in));
  std::uniform_real_distribution<float> uniform(-bound, bound);
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (float& v : values) v = uniform(engine);
  return Tensor::from_vector(std::move(shape), values);
}

class DemoBuilder {
 public:
  GraphBuilder& b() { return b_; }

  // Conv with bias (same padding, stride 1) followed by Relu; the nodes are
  // named `name` and `name`_relu (the fused node keeps the Conv's name).
  std::string ConvRelu(const std::string& x, int64_t cin, int64_t cout, int64_t kernel,
                       const std::string& name) {
    const int64_t fan_in = cin * kernel * kernel;
    const std::string w =
        b_.constant(RandomWeights({cout, cin, kernel, kernel}, fan_in, seed_++), name + ".weight");
    const std::string bias = b_.constant(RandomWeights({cout}, 100, seed_++), name + ".bias");
    const int64_t pad = kernel / 2;
    const std::string y = b_.op("Conv", {x, w, bias},
                                {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                                 {"pads", std::vector<int64_t>{pad, pad, pad, pad}}},
                                name);
    return b_.op("Relu", {y}, {}, name + "_relu");
  }

  Tensor Weights(Shape shape, int64_t fan_in) {
    return RandomWeights(std::move(shape), fan_in, seed_++);
  }

 private:
  GraphBuilder b_{"loom_demo"};
  uint32_t seed_ = 2024;  // any fixed value; the demo must be reproducible
};

}  // namespace

Graph DemoNetwork() {
  DemoBuilder d;
  GraphBuilder& b = d.b();
  std::string x = b.input(kDemoInputName, DType::kFloat32, {"N", 3, 64, 64});
  x = d.ConvRelu(x, 3, 16, 3, "stem_conv");
  x = b.op("MaxPool", {x},
           {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}},
           "stem_pool");
  const std::string tower_a =
      d.ConvRelu(d.ConvRelu(x, 16, 32, 3, "tower_a_conv1"), 32, 32, 3, "tower_a_conv2");
  const std::string tower_b =
      d.ConvRelu(d.ConvRelu(x, 16, 32, 1, "tower_b_conv1"), 32, 32, 3, "tower_b_conv2");
  x = b.op("Concat", {tower_a, tower_b}, {{"axis", int64_t{1}}}, "join");
  x = b.op("GlobalAveragePool", {x}, {}, "head_pool");
  x = b.op("Flatten", {x}, {{"axis", int64_t{1}}}, "head_flatten");
  const std::string w = b.constant(d.Weights({64, kDemoClasses}, 64), "head.weight");
  const std::string bias = b.constant(d.Weights({kDemoClasses}, 64), "head.bias");
  x = b.op("MatMul", {x, w}, {}, "head_matmul");
  x = b.op("Add", {x, bias}, {}, "head_bias");
  b.output(b.op("Softmax", {x}, {{"axis", int64_t{-1}}}, "softmax"), kDemoOutputName);
  return b.build();
}

}  // namespace loom::cli
