// docs/data.md: a pipeline with tf.data's names, the map on the governed
// loom-data pool, read by a range-for.
#include <cstdio>

#include "loom/data.h"

// range gives int64 scalars; decode turns each into a float32 [4] vector.
loom::data::Element decode(loom::data::Element element) {
  const float value = static_cast<float>(element[0].data<int64_t>()[0]);
  return {loom::Tensor::from_vector<float>({4}, {value, value, value, value})};
}

int main() {
  int64_t batches = 0;
  double total = 0;
  using loom::data::Dataset;
  Dataset ds = Dataset::range(1000).map(decode, loom::data::kAutotune).batch(32);
  for (loom::data::Element& batch : ds.iterate()) {  // Element = std::vector<Tensor>
    const float* values = batch[0].data<float>();
    for (int64_t i = 0; i < batch[0].num_elements(); ++i) total += values[i];
    ++batches;
  }
  // 1000 elements in batches of 32: 31 full and one of 8; 4 * (0 + ... + 999).
  std::printf("%lld batches, sum %g\n", static_cast<long long>(batches), total);
  return batches == 32 && total == 4.0 * 999 * 1000 / 2 ? 0 : 1;
}
