// loom.SessionOptions, loom.RunOptions and ONNX Runtime's enums
// (session_options.h). A field Loom applies is checked when set; a field it
// cannot apply is accepted, and setting it to anything but ONNX Runtime's
// default warns once per process, saying so.
#include <string>

#include "loom/config.h"
#include "loom/errors.h"
#include "session_options.h"

namespace loom::python {
namespace {

int ThreadCount(nb::handle value, const char* setting) {
  const int count = IntArgument(value, setting);
  if (count < 0 || count > config::threading::kMaxThreads) {
    throw nb::value_error((std::string(setting) + " must be 0 (the global setting) to " +
                           std::to_string(config::threading::kMaxThreads) + ", got " +
                           std::to_string(count))
                              .c_str());
  }
  return count;
}

int LogSeverity(nb::handle value, const char* setting) {
  const int level = IntArgument(value, setting);
  if (level < -1 || level > 4) {
    throw nb::value_error((std::string(setting) +
                           " must be -1 (default) or 0-4 (verbose, info, warning, error, "
                           "fatal), got " +
                           std::to_string(level))
                              .c_str());
  }
  return level;
}

void NoEffect(const std::string& field, const std::string& why) {
  WarnOnce(field, field + " has no effect in Loom: " + why);
}

constexpr const char* kNoLog =
    "Loom keeps no log of its own; its warnings are Python warnings (the warnings module "
    "filters them)";

std::string Quoted(const std::string& text) {
  return nb::cast<std::string>(nb::repr(nb::str(text.c_str(), text.size())));
}

std::string ConfigEntry(const std::map<std::string, std::string>& entries, const std::string& key,
                        const char* owner) {
  const auto found = entries.find(key);
  if (found == entries.end()) {
    throw RuntimeError(std::string(owner) + " does not have configuration with key: " + key);
  }
  return found->second;
}

void BindEnums(nb::module_& m) {
  nb::enum_<GraphOptimizationLevel>(m, "GraphOptimizationLevel",
                                    "ONNX Runtime's levels: DISABLE_ALL = Loom level 0 (run as "
                                    "given), BASIC = 1 (constant folding, dead nodes), EXTENDED "
                                    "= 2 (also BatchNorm folding, bias/activation and transformer "
                                    "fusions), ALL = 2 and the channel-blocked (NCHWc) layout.")
      .value("ORT_DISABLE_ALL", GraphOptimizationLevel::ORT_DISABLE_ALL)
      .value("ORT_ENABLE_BASIC", GraphOptimizationLevel::ORT_ENABLE_BASIC)
      .value("ORT_ENABLE_EXTENDED", GraphOptimizationLevel::ORT_ENABLE_EXTENDED)
      .value("ORT_ENABLE_ALL", GraphOptimizationLevel::ORT_ENABLE_ALL);
  nb::enum_<ExecutionMode>(m, "ExecutionMode",
                           "ORT_SEQUENTIAL: one node at a time, on the thread calling run(). "
                           "ORT_PARALLEL (Loom's default): independent nodes side by side, "
                           "within the inter-op setting.")
      .value("ORT_SEQUENTIAL", ExecutionMode::ORT_SEQUENTIAL)
      .value("ORT_PARALLEL", ExecutionMode::ORT_PARALLEL);
  nb::enum_<ExecutionOrder>(m, "ExecutionOrder",
                            "Accepted for ONNX Runtime's code; Loom runs a node as soon as its "
                            "inputs are ready whatever the order.")
      .value("DEFAULT", ExecutionOrder::DEFAULT)
      .value("PRIORITY_BASED", ExecutionOrder::PRIORITY_BASED)
      .value("MEMORY_EFFICIENT", ExecutionOrder::MEMORY_EFFICIENT);
}

// A bool field that Loom does not apply: false (or true, `applied_value`)
// is what Loom does anyway; the other value warns.
template <bool PySessionOptions::*Field>
void BindUnappliedBool(nb::class_<PySessionOptions>& cls, const char* name, bool loom_does,
                       const char* why) {
  cls.def_prop_rw(
      name, [](const PySessionOptions& so) { return so.*Field; },
      [name, loom_does, why](PySessionOptions& so, nb::handle value) {
        const std::string field = std::string("SessionOptions.") + name;
        so.*Field = BoolArgument(value, field.c_str());
        if (so.*Field != loom_does) NoEffect(field + " = " + (so.*Field ? "True" : "False"), why);
      });
}

std::string Repr(const PySessionOptions& so) {
  static constexpr const char* kLevels[] = {"ORT_DISABLE_ALL", "ORT_ENABLE_BASIC",
                                            "ORT_ENABLE_EXTENDED"};
  const int level = static_cast<int>(so.graph_optimization_level);
  std::string text =
      "SessionOptions(intra_op_num_threads=" + std::to_string(so.intra_op_num_threads) +
      ", inter_op_num_threads=" + std::to_string(so.inter_op_num_threads) +
      ", graph_optimization_level=" + (level <= 2 ? kLevels[level] : "ORT_ENABLE_ALL") +
      ", enable_profiling=" + (so.enable_profiling ? "True" : "False") +
      ", profile_file_prefix=" + Quoted(so.profile_file_prefix);
  // The other fields only when they differ from the defaults.
  if (so.execution_mode == ExecutionMode::ORT_SEQUENTIAL) text += ", execution_mode=ORT_SEQUENTIAL";
  if (so.use_per_session_threads) text += ", use_per_session_threads=True";
  if (so.max_memory_bytes != 0) text += ", max_memory_bytes=" + std::to_string(so.max_memory_bytes);
  if (so.log_severity_level != -1) {
    text += ", log_severity_level=" + std::to_string(so.log_severity_level);
  }
  if (!so.optimized_model_filepath.empty()) {
    text += ", optimized_model_filepath=" + Quoted(so.optimized_model_filepath);
  }
  for (const auto& [name, size] : so.free_dimension_overrides) {
    text += ", free_dimension_override(" + Quoted(name) + ")=" + std::to_string(size);
  }
  for (const auto& [key, value] : so.config_entries) {
    text += ", config(" + Quoted(key) + ")=" + Quoted(value);
  }
  return text + ")";
}

void BindSessionOptionsClass(nb::module_& m) {
  nb::class_<PySessionOptions> cls(
      m, "SessionOptions",
      "Per-session settings, as onnxruntime.SessionOptions. A thread count above 0 (or "
      "use_per_session_threads = True) gives the session private pools; 0 uses the global "
      "pools (loom.config.threading). Fields Loom cannot apply are accepted and warn once "
      "when set away from ONNX Runtime's default (docs/python.md has the table).");
  cls.def(nb::init<>())
      .def_prop_rw(
          "intra_op_num_threads",
          [](const PySessionOptions& so) { return so.intra_op_num_threads; },
          [](PySessionOptions& so, nb::handle value) {
            so.intra_op_num_threads = ThreadCount(value, "SessionOptions.intra_op_num_threads");
          },
          "Threads one op of the session may use (the calling thread included); 0 = the global "
          "setting.")
      .def_prop_rw(
          "inter_op_num_threads",
          [](const PySessionOptions& so) { return so.inter_op_num_threads; },
          [](PySessionOptions& so, nb::handle value) {
            so.inter_op_num_threads = ThreadCount(value, "SessionOptions.inter_op_num_threads");
          },
          "Nodes of one run that may run at once (ORT_PARALLEL); 0 = the global setting.")
      .def_prop_rw(
          "max_memory_bytes", [](const PySessionOptions& so) { return so.max_memory_bytes; },
          [](PySessionOptions& so, nb::handle value) {
            const int64_t bytes = Int64Argument(value, "SessionOptions.max_memory_bytes");
            if (bytes < 0) {
              throw nb::value_error(("SessionOptions.max_memory_bytes must be >= 0 (0 = no cap "
                                     "of the session's own), got " +
                                     std::to_string(bytes))
                                        .c_str());
            }
            so.max_memory_bytes = bytes;
          },
          "Loom's own: the most bytes one run's tensors may hold at once; a run that would "
          "hold more raises loom.errors.RuntimeError before allocating. 0 (default): only the "
          "process's memory cap (LOOM_MAX_MEMORY, else the cgroup limit or physical memory).")
      .def_rw("graph_optimization_level", &PySessionOptions::graph_optimization_level)
      .def_rw("execution_mode", &PySessionOptions::execution_mode,
              "ORT_PARALLEL (Loom's default; ONNX Runtime's is ORT_SEQUENTIAL) or "
              "ORT_SEQUENTIAL: one node at a time on the calling thread, no inter-op pool.")
      .def_prop_rw(
          "execution_order", [](const PySessionOptions& so) { return so.execution_order; },
          [](PySessionOptions& so, ExecutionOrder order) {
            so.execution_order = order;
            if (order != ExecutionOrder::DEFAULT) {
              NoEffect("SessionOptions.execution_order",
                       "its executor runs a node as soon as its inputs are ready");
            }
          })
      .def_prop_rw(
          "use_per_session_threads",
          [](const PySessionOptions& so) { return so.use_per_session_threads; },
          [](PySessionOptions& so, nb::handle value) {
            so.use_per_session_threads =
                BoolArgument(value, "SessionOptions.use_per_session_threads");
          },
          "True: private pools even when both counts are 0 (then sized by the global "
          "settings). Loom's default (False) shares the global pools.")
      .def_prop_rw(
          "enable_profiling", [](const PySessionOptions& so) { return so.enable_profiling; },
          [](PySessionOptions& so, nb::handle value) {
            so.enable_profiling = BoolArgument(value, "SessionOptions.enable_profiling");
          },
          "Trace every run (nodes and intra-op helpers' share of them) until "
          "InferenceSession.end_profiling() writes the trace.")
      .def_prop_rw(
          "profile_file_prefix", [](const PySessionOptions& so) { return so.profile_file_prefix; },
          [](PySessionOptions& so, nb::handle value) {
            so.profile_file_prefix = StrArgument(value, "SessionOptions.profile_file_prefix");
          },
          "The profile file is <prefix>_<date>_<time>.json, relative to the working directory.")
      .def_prop_rw(
          "log_severity_level", [](const PySessionOptions& so) { return so.log_severity_level; },
          [](PySessionOptions& so, nb::handle value) {
            so.log_severity_level = LogSeverity(value, "SessionOptions.log_severity_level");
          },
          "3 (error) or 4 (fatal): the warnings Loom would raise while creating the session "
          "(unavailable providers, options it does not apply) are not raised; -1 to 2: they "
          "are.")
      .def_prop_rw(
          "log_verbosity_level", [](const PySessionOptions& so) { return so.log_verbosity_level; },
          [](PySessionOptions& so, nb::handle value) {
            so.log_verbosity_level = IntArgument(value, "SessionOptions.log_verbosity_level");
            if (so.log_verbosity_level != 0) {
              NoEffect("SessionOptions.log_verbosity_level", kNoLog);
            }
          })
      .def_prop_rw(
          "logid", [](const PySessionOptions& so) { return so.logid; },
          [](PySessionOptions& so, nb::handle value) {
            so.logid = StrArgument(value, "SessionOptions.logid");
            if (!so.logid.empty()) NoEffect("SessionOptions.logid", kNoLog);
          })
      .def_prop_rw(
          "optimized_model_filepath",
          [](const PySessionOptions& so) { return so.optimized_model_filepath; },
          [](PySessionOptions& so, nb::handle value) {
            nb::object path = nb::module_::import_("os").attr("fspath")(value);
            so.optimized_model_filepath =
                StrArgument(path, "SessionOptions.optimized_model_filepath");
          },
          "When set, creating a session writes the graph it runs (after optimization) there as "
          "ONNX; Loom's own nodes (fusions, the blocked layout) are in the domain 'ai.loom', "
          "which Loom reads back.");
  const char* kReuse =
      "a session always reuses its intermediate buffers (up to 1 GiB kept idle) and frees them "
      "when it is destroyed";
  BindUnappliedBool<&PySessionOptions::enable_cpu_mem_arena>(cls, "enable_cpu_mem_arena", true,
                                                             kReuse);
  BindUnappliedBool<&PySessionOptions::enable_mem_pattern>(cls, "enable_mem_pattern", true, kReuse);
  BindUnappliedBool<&PySessionOptions::enable_mem_reuse>(cls, "enable_mem_reuse", true, kReuse);
  BindUnappliedBool<&PySessionOptions::use_deterministic_compute>(
      cls, "use_deterministic_compute", false,
      "no Loom kernel chooses its algorithm by timing or uses atomic accumulation, so repeated "
      "runs at the same thread counts give the same result anyway");
  cls.def(
         "add_session_config_entry",
         [](PySessionOptions& so, nb::handle key, nb::handle value) {
           const std::string k = StrArgument(key, "SessionOptions.add_session_config_entry: key");
           const std::string v =
               StrArgument(value, "SessionOptions.add_session_config_entry: value");
           if (k == kWinogradConfigKey) {
             if (v != "0" && v != "1") {
               throw nb::value_error(
                   ("SessionOptions.add_session_config_entry: " + std::string(kWinogradConfigKey) +
                    " must be '0' (direct 3x3 convolutions only) or '1' "
                    "(Winograd where it is faster, the default); got " +
                    Quoted(v))
                       .c_str());
             }
             so.config_entries[k] = v;
             return;
           }
           so.config_entries[k] = v;
           NoEffect("session config entry " + Quoted(k),
                    "no session config key but " + std::string(kWinogradConfigKey) +
                        " changes what Loom does (get_session_config_entry returns it)");
         },
         nb::arg("key"), nb::arg("value"))
      .def(
          "get_session_config_entry",
          [](const PySessionOptions& so, const std::string& key) {
            return ConfigEntry(so.config_entries, key, "SessionOptions");
          },
          nb::arg("key"))
      .def(
          "add_free_dimension_override_by_name",
          [](PySessionOptions& so, nb::handle name, nb::handle value) {
            const std::string dim =
                StrArgument(name, "SessionOptions.add_free_dimension_override_by_name: name");
            const int size =
                IntArgument(value, "SessionOptions.add_free_dimension_override_by_name: value");
            if (size < 0) {
              throw nb::value_error(("SessionOptions.add_free_dimension_override_by_name: " +
                                     Quoted(dim) + " must be >= 0, got " + std::to_string(size))
                                        .c_str());
            }
            so.free_dimension_overrides[dim] = size;
          },
          nb::arg("dim_name"), nb::arg("dim_value"),
          "Fixes the inputs' dimensions named dim_name (their dim_param) to dim_value: feeds of "
          "another size are refused, and the optimizer may use the size.")
      .def(
          "add_free_dimension_override_by_denotation",
          [](PySessionOptions&, const std::string&, int) {
            NoEffect("SessionOptions.add_free_dimension_override_by_denotation",
                     "Loom does not keep dimension denotations; use "
                     "add_free_dimension_override_by_name");
          },
          nb::arg("dim_denotation"), nb::arg("dim_value"))
      .def("has_providers", [](const PySessionOptions&) { return false; })
      .def("__repr__", &Repr);
  // Names that would change what the model computes: refused, not ignored.
  for (const char* name :
       {"add_initializer", "add_external_initializers", "register_custom_ops_library",
        "add_provider", "add_provider_for_devices"}) {
    const std::string message =
        std::string("SessionOptions.") + name + " is not available in Loom (" +
        (std::string(name).rfind("add_provider", 0) == 0
             ? "a CPU runtime: pass providers=['CPUExecutionProvider'] or none"
         : std::string(name) == "register_custom_ops_library"
             ? "it cannot load ONNX Runtime custom-op libraries"
             : "initializers come from the model file; edit the model with the onnx "
               "package") +
        ")";
    cls.def(name, [message](PySessionOptions&, nb::args, nb::kwargs) {
      PyErr_SetString(PyExc_NotImplementedError, message.c_str());
      throw nb::python_error();
    });
  }
}

void BindRunOptions(nb::module_& m) {
  nb::class_<PyRunOptions>(m, "RunOptions",
                           "Per-run settings, as onnxruntime.RunOptions: setting terminate = True "
                           "(from any thread) stops the runs given these options before their next "
                           "node, raising loom.errors.CancelledError; set it back to False to run "
                           "again. timeout_seconds (Loom's own) stops a run that takes longer, "
                           "raising loom.errors.DeadlineExceededError (a TimeoutError).")
      .def(nb::init<>())
      .def_prop_rw("terminate", &PyRunOptions::terminate,
                   [](PyRunOptions& ro, nb::handle value) {
                     ro.set_terminate(BoolArgument(value, "RunOptions.terminate"));
                   })
      .def_prop_rw(
          "timeout_seconds", [](const PyRunOptions& ro) { return ro.timeout_seconds; },
          [](PyRunOptions& ro, nb::handle value) {
            double seconds = 0;
            if (PyBool_Check(value.ptr()) || !nb::try_cast(value, seconds)) {
              throw nb::type_error(("RunOptions.timeout_seconds: expected a number, got " +
                                    nb::cast<std::string>(nb::repr(value)))
                                       .c_str());
            }
            // Up to about 31 years: the deadline is kept in int64 nanoseconds.
            if (!(seconds >= 0 && seconds <= 1e9)) {
              throw nb::value_error(
                  ("RunOptions.timeout_seconds must be 0 (no deadline) to 1e9, got " +
                   nb::cast<std::string>(nb::repr(value)))
                      .c_str());
            }
            ro.timeout_seconds = seconds;
          })
      .def_prop_ro(
          "only_execute_path_to_fetches", [](const PyRunOptions&) { return true; },
          "Always True in Loom: a run executes only the nodes its fetched outputs need.")
      .def_prop_rw(
          "log_severity_level", [](const PyRunOptions& ro) { return ro.log_severity_level; },
          [](PyRunOptions& ro, nb::handle value) {
            ro.log_severity_level = LogSeverity(value, "RunOptions.log_severity_level");
            if (ro.log_severity_level != -1) NoEffect("RunOptions.log_severity_level", kNoLog);
          })
      .def_prop_rw(
          "log_verbosity_level", [](const PyRunOptions& ro) { return ro.log_verbosity_level; },
          [](PyRunOptions& ro, nb::handle value) {
            ro.log_verbosity_level = IntArgument(value, "RunOptions.log_verbosity_level");
            if (ro.log_verbosity_level != 0) NoEffect("RunOptions.log_verbosity_level", kNoLog);
          })
      .def_prop_rw(
          "logid", [](const PyRunOptions& ro) { return ro.logid; },
          [](PyRunOptions& ro, nb::handle value) {
            ro.logid = StrArgument(value, "RunOptions.logid");
            if (!ro.logid.empty()) NoEffect("RunOptions.logid", kNoLog);
          })
      .def(
          "add_run_config_entry",
          [](PyRunOptions& ro, nb::handle key, nb::handle value) {
            const std::string k = StrArgument(key, "RunOptions.add_run_config_entry: key");
            ro.config_entries[k] = StrArgument(value, "RunOptions.add_run_config_entry: value");
            NoEffect("run config entry " + Quoted(k),
                     "no run config key changes what Loom does (get_run_config_entry returns it)");
          },
          nb::arg("key"), nb::arg("value"))
      .def(
          "get_run_config_entry",
          [](const PyRunOptions& ro, const std::string& key) {
            return ConfigEntry(ro.config_entries, key, "RunOptions");
          },
          nb::arg("key"))
      .def("__repr__", [](const PyRunOptions& ro) {
        return "RunOptions(terminate=" + std::string(ro.terminate() ? "True" : "False") +
               ", timeout_seconds=" +
               nb::cast<std::string>(nb::repr(nb::float_(ro.timeout_seconds))) + ")";
      });
}

}  // namespace

SessionOptions PySessionOptions::ToSessionOptions() const {
  SessionOptions options;
  options.optimization_level = std::min(static_cast<int>(graph_optimization_level), 2);
  // ONNX Runtime's layout transformations (its NCHWc path) come with
  // ORT_ENABLE_ALL only; so does Loom's blocked layout.
  options.blocked_layout = graph_optimization_level == GraphOptimizationLevel::ORT_ENABLE_ALL;
  options.sequential = execution_mode == ExecutionMode::ORT_SEQUENTIAL;
  options.max_memory_bytes = max_memory_bytes;
  const auto winograd = config_entries.find(kWinogradConfigKey);
  options.winograd = winograd == config_entries.end() || winograd->second != "0";
  return options;
}

RunOptions ToRunOptions(nb::handle run_options) {
  RunOptions options;
  if (run_options.is_none()) return options;
  PyRunOptions* python_options = nullptr;
  if (!nb::try_cast(run_options, python_options) || python_options == nullptr) {
    throw nb::type_error("InferenceSession.run: run_options must be a loom.RunOptions or None");
  }
  options.cancellation = python_options->token;
  options.timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(python_options->timeout_seconds));
  return options;
}

void BindSessionOptions(nb::module_& m) {
  BindEnums(m);
  BindSessionOptionsClass(m);
  BindRunOptions(m);
}

}  // namespace loom::python
