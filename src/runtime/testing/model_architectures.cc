#include "runtime/testing/model_architectures.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace loom::runtime::testing {
namespace {

// He-style scaling keeps activations in a sane range through deep stacks
// (random weights, but no overflow to inf/NaN).
Tensor RandomWeights(Shape shape, int64_t fan_in, uint32_t seed) {
  std::mt19937 engine(seed);
  const float bound = std::sqrt(6.0f / static_cast<float>(fan_in));
  std::uniform_real_distribution<float> uniform(-bound, bound);
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (float& v : values) v = uniform(engine);
  return Tensor::from_vector(std::move(shape), values);
}

class NetBuilder {
 public:
  explicit NetBuilder(const std::string& name) : b_(name) {}

  GraphBuilder& b() { return b_; }

  // Conv (with the folded-BatchNorm bias) and, optionally, an activation.
  std::string Conv(const std::string& x, int64_t cin, int64_t cout, int64_t kernel, int64_t stride,
                   int64_t group = 1) {
    const int64_t fan_in = cin / group * kernel * kernel;
    const std::string w =
        b_.constant(RandomWeights({cout, cin / group, kernel, kernel}, fan_in, seed_++));
    const std::string bias = b_.constant(RandomWeights({cout}, 100, seed_++));
    const int64_t pad = kernel / 2;
    return b_.op("Conv", {x, w, bias},
                 {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                  {"strides", std::vector<int64_t>{stride, stride}},
                  {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                  {"group", group}});
  }
  std::string Relu(const std::string& x) { return b_.op("Relu", {x}); }
  std::string Relu6(const std::string& x) {
    if (clip_min_.empty()) {
      clip_min_ = b_.constant(Tensor::from_vector<float>({}, {0.0f}), "relu6_min");
      clip_max_ = b_.constant(Tensor::from_vector<float>({}, {6.0f}), "relu6_max");
    }
    return b_.op("Clip", {x, clip_min_, clip_max_});
  }
  std::string Gemm(const std::string& x, int64_t in, int64_t out) {
    const std::string w = b_.constant(RandomWeights({out, in}, in, seed_++));
    const std::string bias = b_.constant(RandomWeights({out}, 100, seed_++));
    return b_.op("Gemm", {x, w, bias}, {{"transB", int64_t{1}}});
  }
  std::string Head(const std::string& x, int64_t channels) {
    const std::string pooled = b_.op("GlobalAveragePool", {x});
    return Gemm(b_.op("Flatten", {pooled}, {{"axis", int64_t{1}}}), channels, 1000);
  }

 private:
  GraphBuilder b_;
  uint32_t seed_ = 1;
  std::string clip_min_, clip_max_;
};

std::string BasicBlock(NetBuilder& n, const std::string& x, int64_t cin, int64_t cout,
                       int64_t stride) {
  const std::string main = n.Conv(n.Relu(n.Conv(x, cin, cout, 3, stride)), cout, cout, 3, 1);
  const std::string shortcut = (stride != 1 || cin != cout) ? n.Conv(x, cin, cout, 1, stride) : x;
  return n.Relu(n.b().op("Add", {main, shortcut}));
}

std::string InvertedResidual(NetBuilder& n, const std::string& x, int64_t cin, int64_t cout,
                             int64_t stride, int64_t expand) {
  const int64_t hidden = cin * expand;
  std::string h = x;
  if (expand != 1) h = n.Relu6(n.Conv(h, cin, hidden, 1, 1));
  h = n.Relu6(n.Conv(h, hidden, hidden, 3, stride, hidden));
  h = n.Conv(h, hidden, cout, 1, 1);
  if (stride == 1 && cin == cout) h = n.b().op("Add", {x, h});
  return h;
}

}  // namespace

Graph ResNet18Graph() {
  NetBuilder n("resnet18");
  std::string x = n.b().input("input", DType::kFloat32, {"N", 3, 224, 224});
  x = n.Relu(n.Conv(x, 3, 64, 7, 2));
  x = n.b().op("MaxPool", {x},
               {{"kernel_shape", std::vector<int64_t>{3, 3}},
                {"strides", std::vector<int64_t>{2, 2}},
                {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  int64_t channels = 64;
  for (int64_t stage_channels : {64, 128, 256, 512}) {
    const int64_t stride = stage_channels == 64 ? 1 : 2;
    x = BasicBlock(n, x, channels, stage_channels, stride);
    x = BasicBlock(n, x, stage_channels, stage_channels, 1);
    channels = stage_channels;
  }
  n.b().output(n.Head(x, 512), "output");
  return n.b().build();
}

Graph MobileNetV2Graph() {
  NetBuilder n("mobilenet_v2");
  std::string x = n.b().input("input", DType::kFloat32, {"N", 3, 224, 224});
  x = n.Relu6(n.Conv(x, 3, 32, 3, 2));
  struct Stage {
    int64_t expand, channels, repeats, stride;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t channels = 32;
  for (const Stage& stage : stages) {
    for (int64_t i = 0; i < stage.repeats; ++i) {
      x = InvertedResidual(n, x, channels, stage.channels, i == 0 ? stage.stride : 1, stage.expand);
      channels = stage.channels;
    }
  }
  x = n.Relu6(n.Conv(x, channels, 1280, 1, 1));
  n.b().output(n.Head(x, 1280), "output");
  return n.b().build();
}

Graph MlpGraph() {
  NetBuilder n("mlp");
  std::string x = n.b().input("input", DType::kFloat32, {"N", 784});
  x = n.Relu(n.Gemm(x, 784, 1024));
  x = n.Relu(n.Gemm(x, 1024, 1024));
  x = n.Gemm(x, 1024, 10);
  n.b().output(n.b().op("Softmax", {x}, {{"axis", int64_t{1}}}), "output");
  return n.b().build();
}

}  // namespace loom::runtime::testing
