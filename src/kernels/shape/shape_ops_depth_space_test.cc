// DepthToSpace (DCR and CRD) and SpaceToDepth: the ONNX examples, a round
// trip, errors, and random shapes against the index formulas at every
// thread count.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::Floats;
using testing::RandomTensor;

Attributes Block(int64_t bs, const std::string& mode = "") {
  Attributes attrs = Attributes().set("blocksize", bs);
  if (!mode.empty()) attrs.set("mode", mode);
  return attrs;
}

// The ONNX example input [1, 8, 2, 3]: channel c holds 9c + [0 1 2; 3 4 5].
Tensor ExampleInput() {
  std::vector<float> v;
  for (int c = 0; c < 8; ++c) {
    for (int e = 0; e < 6; ++e) v.push_back(static_cast<float>(9 * c + e));
  }
  return Floats(Shape({1, 8, 2, 3}), v);
}

TEST(DepthToSpace, OnnxExamplesByHand) {
  const Tensor x = ExampleInput();
  // DCR: output channel c, block (i, j) reads input channel (i * 2 + j) * 2 + c.
  const Tensor dcr =
      Floats(Shape({1, 2, 4, 6}), {0,  18, 1,  19, 2,  20, 36, 54, 37, 55, 38, 56, 3,  21, 4,  22,
                                   5,  23, 39, 57, 40, 58, 41, 59, 9,  27, 10, 28, 11, 29, 45, 63,
                                   46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68});
  ExpectEverywhere(DepthToSpaceKernel, Block(2), {&x}, {dcr});
  ExpectEverywhere(DepthToSpaceKernel, Block(2, "DCR"), {&x}, {dcr});
  // CRD: output channel c, block (i, j) reads input channel c * 4 + i * 2 + j.
  const Tensor crd =
      Floats(Shape({1, 2, 4, 6}), {0,  9,  1,  10, 2,  11, 18, 27, 19, 28, 20, 29, 3,  12, 4,  13,
                                   5,  14, 21, 30, 22, 31, 23, 32, 36, 45, 37, 46, 38, 47, 54, 63,
                                   55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68});
  ExpectEverywhere(DepthToSpaceKernel, Block(2, "CRD"), {&x}, {crd});
  // blocksize 1 is the identity.
  ExpectEverywhere(DepthToSpaceKernel, Block(1, "CRD"), {&x}, {x});
}

TEST(SpaceToDepth, OnnxExampleByHand) {
  std::vector<float> v;
  for (int e = 0; e < 48; ++e) v.push_back(static_cast<float>(e));
  const Tensor x = Floats(Shape({1, 2, 4, 6}), v);
  ExpectEverywhere(SpaceToDepthKernel, Block(2), {&x},
                   {Floats(Shape({1, 8, 2, 3}),
                           {0,  2,  4,  12, 14, 16, 24, 26, 28, 36, 38, 40, 1,  3,  5,  13,
                            15, 17, 25, 27, 29, 37, 39, 41, 6,  8,  10, 18, 20, 22, 30, 32,
                            34, 42, 44, 46, 7,  9,  11, 19, 21, 23, 31, 33, 35, 43, 45, 47})});
}

TEST(SpaceToDepth, InvertsDepthToSpaceDcr) {
  const Tensor x = RandomTensor(DType::kInt8, Shape({2, 18, 4, 5}), 9, -100, 100);
  const Tensor space = CallKernel(DepthToSpaceKernel, {}, Block(3), {&x})[0];
  ASSERT_EQ(space.shape(), Shape({2, 2, 12, 15}));
  ExpectEverywhere(SpaceToDepthKernel, Block(3), {&space}, {x});
}

TEST(DepthToSpace, EmptyAndErrors) {
  const Tensor empty(DType::kBool, Shape({0, 4, 3, 3}));
  ExpectEverywhere(DepthToSpaceKernel, Block(2), {&empty},
                   {Tensor(DType::kBool, Shape({0, 1, 6, 6}))});
  ExpectEverywhere(SpaceToDepthKernel, Block(3), {&empty},
                   {Tensor(DType::kBool, Shape({0, 36, 1, 1}))});
  const Tensor x(DType::kFloat32, Shape({1, 6, 2, 2}));
  ExpectError(DepthToSpaceKernel, Block(2), {&x}, "DepthToSpace",
              {"not a multiple of blocksize^2 = 4"});
  ExpectError(DepthToSpaceKernel, Block(0), {&x}, "DepthToSpace", {"'blocksize' must be > 0"});
  ExpectError(DepthToSpaceKernel, Block(1, "RDC"), {&x}, "DepthToSpace", {"'mode'", "RDC"});
  ExpectError(DepthToSpaceKernel, {}, {&x}, "DepthToSpace", {"blocksize"});
  const Tensor rank3(DType::kFloat32, Shape({6, 2, 2}));
  ExpectError(DepthToSpaceKernel, Block(1), {&rank3}, "DepthToSpace", {"rank 4"});
  ExpectError(SpaceToDepthKernel, Block(3), {&x}, "SpaceToDepth", {"multiples of blocksize 3"});
  ExpectError(SpaceToDepthKernel, Block(-2), {&x}, "SpaceToDepth", {"'blocksize' must be > 0"});
}

TEST(DepthToSpace, MatchesTheIndexFormulasAtEveryThreadCount) {
  const int64_t n = 2, c = 3, h = 17, w = 40;
  for (int64_t bs : {int64_t{2}, int64_t{3}}) {
    const int64_t channels = c * bs * bs;
    const Tensor x = RandomTensor(DType::kFloat32, Shape({n, channels, h, w}), 5 + bs);
    const float* in = x.data<float>();
    for (const std::string mode : {"DCR", "CRD"}) {
      Tensor expected(DType::kFloat32, Shape({n, c, h * bs, w * bs}));
      float* out = expected.data<float>();
      for (int64_t b = 0; b < n; ++b)
        for (int64_t k = 0; k < c; ++k)
          for (int64_t y = 0; y < h * bs; ++y)
            for (int64_t z = 0; z < w * bs; ++z) {
              const int64_t i = y % bs, j = z % bs;
              const int64_t from = mode == "DCR" ? (i * bs + j) * c + k : (k * bs + i) * bs + j;
              out[((b * c + k) * h * bs + y) * w * bs + z] =
                  in[((b * channels + from) * h + y / bs) * w + z / bs];
            }
      SCOPED_TRACE(mode + " " + std::to_string(bs));
      ExpectEverywhere(DepthToSpaceKernel, Block(bs, mode), {&x}, {expected});
    }
  }
}

TEST(SpaceToDepth, MatchesTheIndexFormulaAtEveryThreadCount) {
  const int64_t n = 2, c = 5, h = 12, w = 60, bs = 3;
  const Tensor x = RandomTensor(DType::kFloat64, Shape({n, c, h, w}), 77);
  Tensor expected(DType::kFloat64, Shape({n, c * bs * bs, h / bs, w / bs}));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t z = 0; z < w; ++z) {
          const int64_t channel = ((y % bs) * bs + z % bs) * c + k;
          expected.data<double>()[((b * c * bs * bs + channel) * (h / bs) + y / bs) * (w / bs) +
                                  z / bs] = x.data<double>()[((b * c + k) * h + y) * w + z];
        }
  ExpectEverywhere(SpaceToDepthKernel, Block(bs), {&x}, {expected});
}

}  // namespace
}  // namespace loom::kernels
