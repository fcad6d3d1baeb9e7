// README, "Eager operators": a convolution and a ReLU on tensors, run at
// once on the global runtime's intra-op pool.
#include <cstdio>
#include <vector>

#include "loom/ops.h"

int main() {
  // A 3x3 image holding 1..9, a 3x3 kernel of ones and a bias of -30: with
  // padding 1 each output is the sum of a pixel's neighbourhood minus 30.
  const loom::Tensor x =
      loom::Tensor::from_vector<float>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const loom::Tensor w = loom::Tensor::from_vector<float>({1, 1, 3, 3}, std::vector<float>(9, 1));
  const loom::Tensor bias = loom::Tensor::from_vector<float>({1}, {-30});
  loom::Tensor y = loom::ops::relu(loom::ops::conv2d(x, w, &bias, {.pads = {1, 1, 1, 1}}));
  // Neighbourhood sums 12 21 16 / 27 45 33 / 24 39 28, minus 30, then ReLU.
  const std::vector<float> expected = {0, 0, 0, 0, 15, 3, 0, 9, 0};
  for (int i = 0; i < 9; ++i) {
    std::printf("%g%s", y.data<float>()[i], i % 3 == 2 ? "\n" : " ");
    if (y.data<float>()[i] != expected[i]) {
      std::fprintf(stderr, "element %d: %g, expected %g\n", i, y.data<float>()[i], expected[i]);
      return 1;
    }
  }
  return 0;
}
