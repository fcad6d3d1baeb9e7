// The version history of ONNX's default-domain operators: for each op, the
// opsets at which its definition changed ("since_version" in ONNX's
// schemas). A node of a model at opset N follows the newest definition whose
// since_version is <= N; that is the version the opset adapter decides on.
//
// The table (onnx_op_versions_table.cc) is generated from the pinned onnx
// package's schemas by scripts/gen_onnx_op_versions.py; a Python test checks
// it is current. Loom does not read ONNX's schema library at run time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace loom::onnx_import {

// The most definitions any op has had (Cast and Constant: 9 in onnx 1.19).
inline constexpr int kMaxOpVersions = 12;  // room to grow; the generated table asserts it

struct OnnxOpVersions {
  std::string_view op;
  int count;                                  // versions used in `since`
  std::array<int16_t, kMaxOpVersions> since;  // ascending
};

// The newest opset the table knows (24 for onnx 1.19).
extern const int kNewestOnnxOpset;

// Every default-domain op, sorted by name.
std::span<const OnnxOpVersions> OnnxOps();

// The op's history, or nullptr when ONNX has no default-domain op of that
// name.
const OnnxOpVersions* FindOnnxOp(std::string_view op);

// The since_version of `op`'s definition in effect at `opset`: the largest
// since_version <= opset. nullopt when the op is unknown or did not exist
// yet at that opset.
std::optional<int> OpVersionAtOpset(std::string_view op, int opset);

}  // namespace loom::onnx_import
