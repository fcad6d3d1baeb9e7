// loom.SessionOptions and loom.RunOptions: ONNX Runtime's fields, each one
// either applied or accepted with one warning (per field, per process)
// saying that it has no effect in Loom; the table in docs/python.md lists
// what each does. Values are checked when they are set, not at session
// creation: `so.intra_op_num_threads = -1` raises ValueError there.
//
// Thread safety: plain data, read and written under the GIL.
#pragma once

#include <map>
#include <string>

#include "bridge.h"
#include "loom/session.h"

namespace loom::python {

// ONNX Runtime's names, so `so.graph_optimization_level = ...` ports as is.
enum class GraphOptimizationLevel : int {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_ALL = 99,
};

enum class ExecutionMode : int { ORT_SEQUENTIAL = 0, ORT_PARALLEL = 1 };

enum class ExecutionOrder : int { DEFAULT = 0, PRIORITY_BASED = 1, MEMORY_EFFICIENT = 2 };

// The session config key (add_session_config_entry) that switches Winograd
// F(4x4, 3x3) convolutions off ("0") or leaves them to the kernel ("1", the
// default): SessionOptions::winograd.
inline constexpr const char* kWinogradConfigKey = "loom.conv.winograd";

struct PySessionOptions {
  int intra_op_num_threads = 0;  // 0: the global setting (loom.config.threading)
  int inter_op_num_threads = 0;
  GraphOptimizationLevel graph_optimization_level = GraphOptimizationLevel::ORT_ENABLE_ALL;
  // Loom's default runs independent nodes side by side within the inter-op
  // setting (ONNX Runtime's default is ORT_SEQUENTIAL); ORT_SEQUENTIAL runs
  // one node at a time on the calling thread.
  ExecutionMode execution_mode = ExecutionMode::ORT_PARALLEL;
  ExecutionOrder execution_order = ExecutionOrder::DEFAULT;
  // True: private pools even with both counts 0 (sized by the global
  // settings). Loom's default shares the global pools.
  bool use_per_session_threads = false;
  // ONNX Runtime's profiling: every run is traced until end_profiling(),
  // which writes <prefix>_<date>_<time>.json and returns its path.
  bool enable_profiling = false;
  std::string profile_file_prefix = "loom_profile";
  // -1 or 0-2: Loom's warnings while creating the session are shown; 3
  // (error) or 4 (fatal): they are not.
  int log_severity_level = -1;
  int log_verbosity_level = 0;
  std::string logid;
  bool enable_cpu_mem_arena = true;
  bool enable_mem_pattern = true;
  bool enable_mem_reuse = true;
  bool use_deterministic_compute = false;
  std::string optimized_model_filepath;
  std::map<std::string, std::string> config_entries;        // add_session_config_entry
  std::map<std::string, int64_t> free_dimension_overrides;  // by dim_param name
  int64_t max_memory_bytes = 0;  // Loom's own: SessionOptions::max_memory_bytes

  // The C++ session's options these stand for (thread counts still 0 =
  // global; the session resolves them).
  SessionOptions ToSessionOptions() const;
};

// onnxruntime.RunOptions' `terminate`, which cancels the runs given these
// options (from any thread), plus Loom's deadline. Read under the GIL when
// run() starts; the token's flag is shared with the run from then on.
struct PyRunOptions {
  CancellationToken token;
  double timeout_seconds = 0;  // 0: no deadline
  int log_severity_level = -1;
  int log_verbosity_level = 0;
  std::string logid;
  std::map<std::string, std::string> config_entries;  // add_run_config_entry

  bool terminate() const { return token.cancelled(); }
  void set_terminate(bool terminate) {
    if (terminate) {
      token.cancel();
    } else if (token.cancelled()) {
      token = CancellationToken();  // later runs start afresh
    }
  }
};

// The C++ run options for `run_options` (None or a loom.RunOptions).
RunOptions ToRunOptions(nb::handle run_options);

void BindSessionOptions(nb::module_& m);

}  // namespace loom::python
