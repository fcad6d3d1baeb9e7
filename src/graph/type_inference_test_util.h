// Helpers shared by the type inference tests: build a graph, infer, and
// render a type with every unknown dim ("?<node>.<k>") shown as "?", so an
// expectation reads "float32[N, 8, ?, ?]".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/type_inference.h"
#include "graph/type_rules.h"
#include "loom/errors.h"
#include "loom/graph.h"

namespace loom::graph::testing {

inline constexpr DType kF32 = DType::kFloat32;
inline constexpr DType kF64 = DType::kFloat64;
inline constexpr DType kI32 = DType::kInt32;
inline constexpr DType kI64 = DType::kInt64;
inline constexpr DType kBool = DType::kBool;

// "float32[N, ?, 3]"; an unknown rank is "float32 unranked".
inline std::string Render(const TensorType& type) {
  std::string out(dtype_name(type.dtype));
  if (!type.shape) return out + " unranked";
  out += "[";
  for (size_t i = 0; i < type.shape->size(); ++i) {
    const Dim& dim = (*type.shape)[i];
    out += (i ? ", " : "") + (IsUnknownDim(dim) ? std::string("?") : dim.to_string());
  }
  return out + "]";
}

// Marks `values` as graph outputs, builds (verifying), infers, and renders
// each value's type.
inline std::vector<std::string> OutputTypes(GraphBuilder& builder,
                                            const std::vector<std::string>& values) {
  for (const std::string& value : values) builder.output(value);
  Graph graph = builder.build();
  InferTypes(graph);
  std::vector<std::string> types;
  for (const std::string& value : values) types.push_back(Render(graph.value_types.at(value)));
  return types;
}

inline std::string OutputType(GraphBuilder& builder, const std::string& value) {
  return OutputTypes(builder, {value})[0];
}

// The message of the InvalidArgumentError that building (which verifies and
// so infers types) throws, or "no error".
inline std::string BuildErrorOf(GraphBuilder& builder, const std::string& output) {
  builder.output(output);
  try {
    builder.build();
  } catch (const InvalidArgumentError& error) {
    return error.what();
  }
  return "no error";
}

// A 1-D int64 tensor (shapes, axes, pads ...).
inline Tensor Ints(const std::vector<int64_t>& values) {
  return Tensor::from_vector(Shape({static_cast<int64_t>(values.size())}), values);
}

}  // namespace loom::graph::testing
