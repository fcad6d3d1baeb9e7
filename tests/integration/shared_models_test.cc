// The shared models (../shared/models, exported from PyTorch with a dynamic
// batch) loaded by the ONNX importer and run by a Session, compared with
// the outputs PyTorch computed: rtol 1e-3, atol 1e-4, at batch 1 and at
// batch 8 (the input tiled; every row must match). Skipped when the folder
// does not exist (a fresh clone without the shared files).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/npy.h"
#include "loom/onnx.h"
#include "loom/session.h"

namespace loom {
namespace {

namespace fs = std::filesystem;

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;
constexpr int kBigBatch = 8;

std::string ModelsDir() { return LOOM_SHARED_MODELS_DIR; }

std::string ReadText(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  std::string s = text.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// `tensor` repeated `times` times along axis 0.
Tensor TileBatch(const Tensor& tensor, int times) {
  std::vector<int64_t> dims = tensor.shape().dims();
  dims[0] *= times;
  Tensor out(tensor.dtype(), Shape(dims));
  for (int i = 0; i < times; ++i) {
    std::memcpy(static_cast<char*>(out.raw_data()) + i * tensor.nbytes(), tensor.raw_data(),
                tensor.nbytes());
  }
  return out;
}

// Compares rows [row * n, (row + 1) * n) of `got` with all of `want`.
void ExpectClose(const Tensor& got, int row, const Tensor& want, const std::string& what) {
  const auto n = static_cast<size_t>(want.num_elements());
  const float* g = got.data<float>() + static_cast<size_t>(row) * n;
  const float* w = want.data<float>();
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double diff = std::fabs(static_cast<double>(g[i]) - w[i]);
    const double allowed = kAtol + kRtol * std::fabs(static_cast<double>(w[i]));
    if (!(diff <= allowed)) ++bad;
    worst = std::max(worst, diff);
  }
  EXPECT_EQ(bad, 0u) << what << " row " << row << ": " << bad << " of " << n
                     << " elements outside rtol 1e-3 / atol 1e-4 (largest difference " << worst
                     << ")";
}

class SharedModels : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModels, MatchPyTorchAtBatchOneAndEight) {
  if (!fs::is_directory(ModelsDir())) {
    GTEST_SKIP() << ModelsDir() << " does not exist (the shared models are not on this machine)";
  }
  const std::string base = ModelsDir() + "/" + GetParam();
  for (const char* suffix : {".onnx", ".input.npy", ".output.npy", ".input_name"}) {
    ASSERT_TRUE(fs::exists(base + suffix)) << base + suffix;
  }
  const std::string input_name = ReadText(base + ".input_name");
  const Tensor input = io::ReadNpy(base + ".input.npy");
  const Tensor expected = io::ReadNpy(base + ".output.npy");
  ASSERT_EQ(input.shape().dims()[0], 1);
  ASSERT_EQ(expected.dtype(), DType::kFloat32);

  Session session(load_onnx_model(base + ".onnx"));
  ASSERT_EQ(session.outputs().size(), 1u);

  const std::vector<Tensor> one = session.run({{input_name, input}});
  ASSERT_EQ(one[0].shape(), expected.shape());
  ExpectClose(one[0], 0, expected, GetParam() + " batch 1");

  const std::vector<Tensor> eight = session.run({{input_name, TileBatch(input, kBigBatch)}});
  std::vector<int64_t> dims = expected.shape().dims();
  dims[0] = kBigBatch;
  ASSERT_EQ(eight[0].shape(), Shape(dims));
  for (int row = 0; row < kBigBatch; ++row) {
    ExpectClose(eight[0], row, expected, GetParam() + " batch 8");
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModels, ::testing::Values("resnet18", "mobilenet_v2", "mlp"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace loom
