// Running one backend test case through Loom: load model.onnx with the
// importer, build a loom::Session, and for each test_data_set_<N> feed
// input_<K>.pb and compare every output with output_<K>.pb (compare.h).
//
// Verdicts:
//  - PASSED: every data set's outputs match.
//  - UNSUPPORTED: loading or running failed, and the model uses something
//    Loom lacks on purpose (unsupported_features.h: an op with no kernel, a
//    dtype, an opset, a non-tensor type) or the error says so (a dtype a
//    kernel has no code for). The reason names it.
//  - FAILED: anything else — an error, or an output that differs (the
//    reason gives the data set, the output name and the first mismatch).
//
// Inputs are fed by the name a TensorProto carries; a nameless one (or one
// naming no graph input) goes to the K-th graph input that has no
// initializer, the ONNX backend runner's order. Outputs likewise.
//
// Errors: none escape; every exception becomes a FAILED (or UNSUPPORTED)
// result, so one bad case cannot stop a run.
//
// Thread safety: RunCase may be called concurrently for different cases.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "onnx_import/conformance/case_discovery.h"
#include "onnx_import/conformance/compare.h"

namespace loom::conformance {

enum class CaseStatus { kPassed, kFailed, kUnsupported };

// "passed", "failed", "unsupported".
std::string_view CaseStatusName(CaseStatus status);

struct CaseResult {
  std::string id;  // ConformanceCase::id()
  CaseStatus status = CaseStatus::kFailed;
  // FAILED: what went wrong; UNSUPPORTED: what Loom lacks; PASSED: empty.
  std::string reason;
  // UNSUPPORTED from the model scan: the items (FindUnsupportedFeatures).
  std::vector<std::string> unsupported;
  std::vector<std::string> op_types;  // OpTypes(model), empty if it did not parse
  int data_sets_run = 0;
  double seconds = 0;
};

struct RunnerOptions {
  Tolerance tolerance;
};

CaseResult RunCase(const ConformanceCase& test_case, const RunnerOptions& options = {});

}  // namespace loom::conformance
