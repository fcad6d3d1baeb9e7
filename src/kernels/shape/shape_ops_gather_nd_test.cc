// GatherND: the ONNX examples by hand, batch_dims, negative indices, empty
// tensors and errors; random cases against a plain per-element loop at
// every thread count.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/shape/shape_ops.h"
#include "kernels/shape/shape_ops_test_util.h"

namespace loom::kernels {
namespace {

using testing::ExpectError;
using testing::ExpectEverywhere;
using testing::RandomTensor;

Attributes BatchDims(int64_t b) { return Attributes().set("batch_dims", b); }

Tensor Idx(Shape shape, const std::vector<int64_t>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

Tensor Ints(Shape shape, const std::vector<int32_t>& values) {
  return Tensor::from_vector(std::move(shape), values);
}

TEST(GatherND, OnnxExamplesByHand) {
  const Tensor d22 = Ints(Shape({2, 2}), {0, 1, 2, 3});
  // Example 1: full tuples pick elements.
  const Tensor i1 = Idx(Shape({2, 2}), {0, 0, 1, 1});
  ExpectEverywhere(GatherNDKernel, {}, {&d22, &i1}, {Ints(Shape({2}), {0, 3})});
  // Example 2: 1-tuples pick rows.
  const Tensor i2 = Idx(Shape({2, 1}), {1, 0});
  ExpectEverywhere(GatherNDKernel, {}, {&d22, &i2}, {Ints(Shape({2, 2}), {2, 3, 0, 1})});
  const Tensor d222 = Ints(Shape({2, 2, 2}), {0, 1, 2, 3, 4, 5, 6, 7});
  // Example 3 and 4: 2-tuples into rank 3 pick rows; extra index dims stay.
  const Tensor i3 = Idx(Shape({2, 2}), {0, 1, 1, 0});
  ExpectEverywhere(GatherNDKernel, {}, {&d222, &i3}, {Ints(Shape({2, 2}), {2, 3, 4, 5})});
  const Tensor i4 = Idx(Shape({2, 1, 2}), {0, 1, 1, 0});
  ExpectEverywhere(GatherNDKernel, {}, {&d222, &i4}, {Ints(Shape({2, 1, 2}), {2, 3, 4, 5})});
  // Example 5: batch_dims = 1, batch 0 takes its row 1, batch 1 its row 0.
  const Tensor i5 = Idx(Shape({2, 1}), {1, 0});
  ExpectEverywhere(GatherNDKernel, BatchDims(1), {&d222, &i5}, {Ints(Shape({2, 2}), {2, 3, 4, 5})});
}

TEST(GatherND, NegativeIndicesCountFromTheEnd) {
  const Tensor d = Ints(Shape({2, 3}), {0, 1, 2, 3, 4, 5});
  const Tensor i = Idx(Shape({3, 2}), {-1, -1, 0, -3, -2, 1});
  ExpectEverywhere(GatherNDKernel, {}, {&d, &i}, {Ints(Shape({3}), {5, 0, 1})});
  const Tensor i32 = Tensor::from_vector(Shape({1, 1}), std::vector<int32_t>{-2});
  ExpectEverywhere(GatherNDKernel, {}, {&d, &i32}, {Ints(Shape({1, 3}), {0, 1, 2})});
}

TEST(GatherND, BatchDimsTwoWithScalarSlices) {
  // data [2, 2, 3]; per (b0, b1) one index into the last axis.
  const Tensor d = Ints(Shape({2, 2, 3}), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor i = Idx(Shape({2, 2, 1}), {2, 0, 1, -1});
  ExpectEverywhere(GatherNDKernel, BatchDims(2), {&d, &i}, {Ints(Shape({2, 2}), {2, 3, 7, 11})});
}

TEST(GatherND, EmptyTensors) {
  const Tensor d = Ints(Shape({2, 3}), {0, 1, 2, 3, 4, 5});
  const Tensor none = Idx(Shape({0, 1}), {});
  ExpectEverywhere(GatherNDKernel, {}, {&d, &none}, {Tensor(DType::kInt32, Shape({0, 3}))});
  // A zero-sized slice: nothing to copy, but the shape is still right.
  const Tensor flat(DType::kFloat32, Shape({2, 0}));
  const Tensor row = Idx(Shape({1, 1}), {1});
  ExpectEverywhere(GatherNDKernel, {}, {&flat, &row}, {Tensor(DType::kFloat32, Shape({1, 0}))});
}

TEST(GatherND, Errors) {
  const Tensor d = Ints(Shape({2, 3}), {0, 1, 2, 3, 4, 5});
  const Tensor bad = Idx(Shape({1, 2}), {1, 3});
  ExpectError(GatherNDKernel, {}, {&d, &bad}, "GatherND",
              {"index 3 at position 1", "[-3, 3)", "axis 1", "[2, 3]"});
  const Tensor low = Idx(Shape({1, 1}), {-3});
  ExpectError(GatherNDKernel, {}, {&d, &low}, "GatherND", {"index -3"});
  const Tensor long_tuple = Idx(Shape({1, 3}), {0, 0, 0});
  ExpectError(GatherNDKernel, {}, {&d, &long_tuple}, "GatherND", {"tuples of 3 indices"});
  const Tensor i = Idx(Shape({2, 1}), {0, 0});
  ExpectError(GatherNDKernel, BatchDims(2), {&d, &i}, "GatherND", {"'batch_dims' = 2"});
  ExpectError(GatherNDKernel, BatchDims(-1), {&d, &i}, "GatherND", {"'batch_dims' = -1"});
  const Tensor i3 = Idx(Shape({3, 1}), {0, 0, 0});
  ExpectError(GatherNDKernel, BatchDims(1), {&d, &i3}, "GatherND", {"(batch) dims"});
  const Tensor f = Tensor::from_vector(Shape({1, 1}), std::vector<float>{0});
  ExpectError(GatherNDKernel, {}, {&d, &f}, "GatherND", {"'indices'", "float32"});
  const Tensor scalar = Idx(Shape(), {0});
  ExpectError(GatherNDKernel, {}, {&d, &scalar}, "GatherND", {"rank >= 1"});
}

// The plain definition: output[prefix..., rest...] = data[prefix[:b]...,
// indices[prefix...]..., rest...].
Tensor PlainGatherND(const Tensor& data, const Tensor& indices, int b) {
  const std::vector<int64_t>& dd = data.shape().dims();
  const std::vector<int64_t>& id = indices.shape().dims();
  const int q = static_cast<int>(id.size());
  const int64_t k = id.back();
  std::vector<int64_t> out_dims(id.begin(), id.end() - 1);
  out_dims.insert(out_dims.end(), dd.begin() + b + k, dd.end());
  Tensor out(data.dtype(), Shape(out_dims));
  const int64_t* idx = indices.data<int64_t>();
  const size_t size = dtype_size(data.dtype());
  for (int64_t e = 0; e < out.num_elements(); ++e) {
    std::vector<int64_t> coord(out_dims.size());
    int64_t rest = e;
    for (int d = static_cast<int>(out_dims.size()) - 1; d >= 0; --d) {
      coord[d] = rest % out_dims[d];
      rest /= out_dims[d];
    }
    int64_t tuple = 0;  // flat position of the tuple in indices[..., :]
    for (int d = 0; d < q - 1; ++d) tuple = tuple * id[d] + coord[d];
    std::vector<int64_t> src(coord.begin(), coord.begin() + b);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t v = idx[tuple * k + j];
      src.push_back(v < 0 ? v + dd[b + j] : v);
    }
    src.insert(src.end(), coord.begin() + (q - 1), coord.end());
    int64_t flat = 0;
    for (size_t d = 0; d < dd.size(); ++d) flat = flat * dd[d] + src[d];
    std::memcpy(static_cast<std::byte*>(out.raw_data()) + e * size,
                static_cast<const std::byte*>(data.raw_data()) + flat * size, size);
  }
  return out;
}

TEST(GatherND, MatchesAPlainLoopAtEveryThreadCount) {
  struct Case {
    Shape data;
    std::vector<int64_t> index_prefix;  // indices.shape[:-1]
    int k;
    int b;
  };
  const std::vector<Case> cases = {
      {Shape({7, 5, 3}), {4}, 1, 0},
      {Shape({7, 5, 3}), {2, 3}, 2, 0},
      {Shape({7, 5, 3}), {6}, 3, 0},
      {Shape({3, 4, 5, 6}), {3, 2}, 2, 1},
      {Shape({2, 3, 9, 700}), {2, 3, 5}, 1, 2},
      {Shape({300, 70}), {513}, 1, 0},
  };
  uint32_t seed = 7;
  for (const Case& c : cases) {
    std::vector<int64_t> index_dims = c.index_prefix;
    index_dims.push_back(c.k);
    const Shape index_shape(index_dims);
    std::mt19937 rng(++seed);
    std::vector<int64_t> values(static_cast<size_t>(index_shape.num_elements()));
    for (size_t i = 0; i < values.size(); ++i) {
      const int64_t dim = c.data.dims()[c.b + static_cast<int>(i % c.k)];
      values[i] = static_cast<int64_t>(rng() % static_cast<uint32_t>(2 * dim)) - dim;
    }
    const Tensor indices = Idx(index_shape, values);
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kBool}) {
      const Tensor data = RandomTensor(dtype, c.data, ++seed, -50, 50);
      SCOPED_TRACE(c.data.to_string() + " indices " + index_shape.to_string());
      ExpectEverywhere(GatherNDKernel, BatchDims(c.b), {&data, &indices},
                       {PlainGatherND(data, indices, c.b)});
    }
  }
}

}  // namespace
}  // namespace loom::kernels
