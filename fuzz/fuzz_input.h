// Reading fuzzer bytes as tensors and attributes, shared by the targets
// that build calls from them (eager_ops, graph_builder). Reading past the
// end gives zeros, so every byte string means something.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "loom/attributes.h"
#include "loom/tensor.h"

namespace loom_fuzz {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  int8_t NextSigned() { return static_cast<int8_t>(Next()); }
  // Copies up to `count` bytes into `out`, zeros after the end.
  void Fill(uint8_t* out, size_t count) {
    const size_t take = pos_ < size_ ? std::min(count, size_ - pos_) : 0;
    if (take > 0) std::memcpy(out, data_ + pos_, take);
    if (take < count) std::memset(out + take, 0, count - take);
    pos_ += take;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

template <typename T, size_t N>
const T& Pick(const T (&table)[N], uint8_t byte) {
  return table[byte % N];
}

// Attribute names ops read; a name an op does not know is an error too.
inline const char* const kNames[] = {"axis",
                                     "axes",
                                     "keepdims",
                                     "perm",
                                     "kernel_shape",
                                     "strides",
                                     "pads",
                                     "dilations",
                                     "group",
                                     "alpha",
                                     "beta",
                                     "gamma",
                                     "epsilon",
                                     "to",
                                     "mode",
                                     "transA",
                                     "transB",
                                     "k",
                                     "largest",
                                     "sorted",
                                     "auto_pad",
                                     "ceil_mode",
                                     "value",
                                     "split",
                                     "blocksize",
                                     "direction",
                                     "exclusive",
                                     "reverse",
                                     "select_last_index",
                                     "noop_with_empty_axes",
                                     "coordinate_transformation_mode",
                                     "upper",
                                     "output_padding",
                                     "output_shape",
                                     "count_include_pad",
                                     "storage_order",
                                     "allowzero"};
inline const char* const kStrings[] = {
    "constant", "reflect",    "edge",       "wrap",          "nearest", "linear", "cubic",
    "NOTSET",   "VALID",      "SAME_UPPER", "SAME_LOWER",    "DCR",     "CRD",    "LEFT",
    "RIGHT",    "half_pixel", "asymmetric", "align_corners", ""};

// [dtype, rank (0-4), dims (0-8 each), the elements' bytes].
inline loom::Tensor ReadTensor(Bytes& in) {
  const auto dtype = static_cast<loom::DType>(in.Next() % loom::kNumDTypes);
  std::vector<int64_t> dims(in.Next() % 5);
  for (int64_t& dim : dims) dim = in.Next() % 9;
  loom::Tensor tensor = loom::Tensor::uninitialized(dtype, loom::Shape(dims));
  auto* bytes = static_cast<uint8_t*>(tensor.raw_data());
  in.Fill(bytes, tensor.nbytes());
  if (dtype == loom::DType::kBool) {
    for (size_t b = 0; b < tensor.nbytes(); ++b) bytes[b] &= 1;  // bool is 0 or 1
  }
  return tensor;
}

// [count (0-4), per attribute: name, kind, value].
inline loom::Attributes ReadAttributes(Bytes& in) {
  loom::Attributes attributes;
  const int count = in.Next() % 5;
  for (int a = 0; a < count; ++a) {
    const std::string name = Pick(kNames, in.Next());
    switch (in.Next() % 5) {
      case 0:
        attributes.set(name, int64_t{in.NextSigned()});
        break;
      case 1:
        attributes.set(name, in.NextSigned() / 4.0f);
        break;
      case 2: {
        std::vector<int64_t> values(in.Next() % 7);
        for (int64_t& v : values) v = in.NextSigned();
        attributes.set(name, values);
        break;
      }
      case 3: {
        std::vector<float> values(in.Next() % 7);
        for (float& v : values) v = in.NextSigned() / 4.0f;
        attributes.set(name, values);
        break;
      }
      default:
        attributes.set(name, std::string(Pick(kStrings, in.Next())));
    }
  }
  return attributes;
}

}  // namespace loom_fuzz
