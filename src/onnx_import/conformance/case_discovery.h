// Finding the cases of an ONNX backend test tree:
//
//   <root>/<suite>/<case>/model.onnx
//                        /test_data_set_<N>/input_<K>.pb, output_<K>.pb
//
// with suites node, pytorch-converted, pytorch-operator, simple and real (the
// layout of onnx/backend/test/data, which Debian ships in libonnx-testdata).
// `root` may also be one suite folder or one case folder.
//
// Thread safety: pure functions over the file system.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace loom::conformance {

inline constexpr std::array<std::string_view, 5> kSuites = {"node", "pytorch-converted",
                                                            "pytorch-operator", "simple", "real"};

struct ConformanceCase {
  std::string suite;  // "node"
  std::string name;   // "test_abs"
  std::string dir;    // the folder holding model.onnx
  // test_data_set_<N> folders, in numeric order of N.
  std::vector<std::string> data_sets;

  // "node/test_abs": unique within a tree; what filters and the known-failures
  // list match.
  std::string id() const { return suite + "/" + name; }
};

struct CaseList {
  std::vector<ConformanceCase> cases;  // sorted by suite order, then name
  // Case folders with no model.onnx (the real/ suite ships only a download
  // link), as ids.
  std::vector<std::string> without_model;
};

// Throws loom::InvalidArgumentError naming `root` when it is not a folder.
CaseList FindCases(const std::string& root);

// The files "<prefix>_<K>.pb" in `data_set_dir` ordered by K (input_10 after
// input_9). Throws loom::InvalidArgumentError naming the folder when the
// numbers leave a gap (input_0, input_2).
std::vector<std::string> DataFiles(const std::string& data_set_dir, std::string_view prefix);

}  // namespace loom::conformance
