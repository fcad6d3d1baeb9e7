// What the QDQ passes (FuseQdqConv, FuseQdqAdd, DropQdqAroundSelection)
// share: the
// per-tensor DequantizeLinear and QuantizeLinear nodes ONNX Runtime's
// quantize_static writes around every operator of a QDQ model.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loom/graph.h"

namespace loom::graph {

// One per-tensor quantization: the scale and zero point a DequantizeLinear
// or QuantizeLinear reads, by name and by value.
struct PerTensorQuant {
  std::string scale;       // a one-element float32 constant
  std::string zero_point;  // a one-element int8/uint8 constant
  float scale_value = 0;
  int32_t zero_point_value = 0;
  DType dtype = DType::kUInt8;  // the zero point's, int8 or uint8

  // Same dtype and bit-for-bit the same scale and zero point values.
  bool same_values(const PerTensorQuant& other) const;
};

// The parameters of `dq` when it is DequantizeLinear(xq, scale, zero_point)
// with one output, quantized per tensor (one-element constants: a float32
// scale, an int8/uint8 zero point), not blocked, writing float32, and xq's
// known dtype (KnownType) is the zero point's; nullopt otherwise.
std::optional<PerTensorQuant> MatchPerTensorDequantize(const Graph& graph, const Node& dq);

// The parameters of `q` when it is QuantizeLinear(x, scale, zero_point)
// with one output, quantized per tensor (as above), not blocked, whose
// output_dtype (if set) is the zero point's and whose precision (if set) is
// float32; nullopt otherwise.
std::optional<PerTensorQuant> MatchPerTensorQuantize(const Graph& graph, const Node& q);

// The end of a QDQ rewrite: each DQ in `dequantizers` that no node reads
// any more and that is no graph output is marked in `erase` too, with its
// inputs added to `unused`; then the marked nodes go, the initializers in
// `unused` that nothing reads go, and stale value types are dropped.
void FinishQdqRewrite(Graph& graph, std::vector<bool>& erase, const std::set<size_t>& dequantizers,
                      std::vector<std::string> unused);

}  // namespace loom::graph
