// loom.config.threading: tf.config.threading's names over
// loom::config::threading. Every rule (environment outranks the call, the
// frozen-after-start error, validation) lives in C++; this file only maps
// warnings and errors to Python's.

#include <optional>
#include <string>
#include <vector>

#include "bridge.h"
#include "loom/config.h"
#include "loom/runtime.h"
#include "platform/cpu_list.h"

namespace loom::python {
namespace {

namespace threading = loom::config::threading;

// A CPU list as the CLI and LOOM_*_CPUS take it ("0-3,6") or a sequence of
// ints.
std::vector<int> CpuListArgument(nb::handle value, const char* setting) {
  std::vector<int> cpus;
  if (nb::isinstance<nb::str>(value)) {
    const std::string text = nb::cast<std::string>(value);
    std::optional<std::vector<int>> parsed = platform::ParseCpuList(text);
    if (!parsed) {
      throw nb::value_error((std::string(setting) + ": '" + text +
                             "' is not a CPU list (write e.g. '0-3,6' or [0, 1, 2, 3, 6])")
                                .c_str());
    }
    return *parsed;
  }
  if (!PySequence_Check(value.ptr())) {
    throw nb::type_error((std::string(setting) +
                          ": expected a list of CPU numbers or a "
                          "string like '0-3', got " +
                          nb::cast<std::string>(nb::repr(value.type())))
                             .c_str());
  }
  for (nb::handle cpu : value) cpus.push_back(IntArgument(cpu, setting));
  return cpus;
}

template <typename Setter>
auto WarningSetter(Setter setter, const char* setting) {
  return [setter, setting](nb::handle value) {
    const int number = IntArgument(value, setting);
    RunWithWarnings([&] { setter(number); });
  };
}

template <typename Setter>
auto WarningCpuSetter(Setter setter, const char* setting) {
  return [setter, setting](nb::handle value) {
    const std::vector<int> cpus = CpuListArgument(value, setting);
    RunWithWarnings([&] { setter(cpus); });
  };
}

}  // namespace

void BindConfig(nb::module_& m) {
  nb::module_ config = m.def_submodule("config", "Loom's configuration.");
  nb::module_ t = config.def_submodule(
      "threading",
      "Thread settings, named as in tf.config.threading. 0 means automatic; environment "
      "variables (LOOM_NUM_INTRAOP_THREADS / TF_NUM_INTRAOP_THREADS, ...) outrank these calls, "
      "which then warn; after the runtime starts a change raises RuntimeError.");

  t.def("set_intra_op_parallelism_threads",
        WarningSetter(threading::set_intra_op_parallelism_threads,
                      "set_intra_op_parallelism_threads"),
        nb::arg("num_threads").none(),
        "Threads one op may use: the calling thread plus num_threads - 1 'loom-intra-*' workers. "
        "0 = automatic (usable CPUs). Raises ValueError for a negative count, RuntimeError for a "
        "change after the runtime started.");
  t.def("get_intra_op_parallelism_threads", &threading::get_intra_op_parallelism_threads,
        "The intra-op thread count in force (never 0: automatic is resolved).");
  t.def("set_inter_op_parallelism_threads",
        WarningSetter(threading::set_inter_op_parallelism_threads,
                      "set_inter_op_parallelism_threads"),
        nb::arg("num_threads").none(),
        "Nodes of one session run that may run at once: the thread calling run() plus "
        "num_threads - 1 'loom-inter-*' workers. 0 = automatic.");
  t.def("get_inter_op_parallelism_threads", &threading::get_inter_op_parallelism_threads,
        "The inter-op thread count in force (never 0).");
  t.def("set_data_pipeline_threads",
        WarningSetter(threading::set_data_pipeline_threads, "set_data_pipeline_threads"),
        nb::arg("num_threads").none(),
        "Threads of the 'loom-data-*' pool that runs loom.data pipelines (created when the first "
        "pipeline starts iterating). 0 = automatic (usable CPUs). LOOM_NUM_DATA_THREADS outranks "
        "it.");
  t.def("get_data_pipeline_threads", &threading::get_data_pipeline_threads,
        "The data pool size in force (never 0).");
  t.def("set_spin_wait_us", WarningSetter(threading::set_spin_wait_us, "set_spin_wait_us"),
        nb::arg("microseconds").none(),
        "How long an idle worker spins before it blocks; 0 blocks at once (the good-neighbour "
        "setting).");
  t.def("get_spin_wait_us", &threading::get_spin_wait_us);
  t.def("set_cpu_budget", WarningSetter(threading::set_cpu_budget, "set_cpu_budget"),
        nb::arg("tokens").none(),
        "The process's CPU budget: at most this many threads run Loom work at once (intra-op "
        "helpers, inter-op runners, data workers and the threads calling run() or an op, "
        "together). 0 = the usable CPUs; never called: no budget. LOOM_CPU_BUDGET outranks it.");
  t.def("get_cpu_budget", &threading::get_cpu_budget, "The CPU budget in force (never 0).");
  t.def(
      "set_cpu_allotment",
      [](nb::handle cpus, const std::string& granted_by) {
        const int number = IntArgument(cpus, "set_cpu_allotment");
        RunWithWarnings([&] { threading::set_cpu_allotment(number, granted_by); });
      },
      nb::arg("cpus").none(), nb::arg("granted_by") = "api",
      "The CPUs a scheduler assigned to this process without enforcing them (a Ray actor's "
      "num_cpus, a Dask worker's nthreads): automatic values become min(usable CPUs, cpus) with "
      "source 'auto:<granted_by>', the automatic CPU budget becomes that number, and "
      "OMP_NUM_THREADS stops deciding the intra-op value. Explicit settings still win (warning "
      "when above it). 0 removes it. Inside Ray workers loom sets it itself (loom.ray).");
  t.def("get_cpu_allotment", &threading::get_cpu_allotment, "The allotment in force, 0 = none.");
  t.def("set_intra_op_cpu_affinity",
        WarningCpuSetter(threading::set_intra_op_cpu_affinity, "set_intra_op_cpu_affinity"),
        nb::arg("cpus").none(),
        "Pins intra-op worker i to cpus[i % len(cpus)]; [] = not pinned. cpus: a list of CPU "
        "numbers or a string like '0-3,6' (the CLI's and LOOM_INTRAOP_CPUS' syntax).");
  t.def("get_intra_op_cpu_affinity", &threading::get_intra_op_cpu_affinity);
  t.def("set_inter_op_cpu_affinity",
        WarningCpuSetter(threading::set_inter_op_cpu_affinity, "set_inter_op_cpu_affinity"),
        nb::arg("cpus").none());
  t.def("get_inter_op_cpu_affinity", &threading::get_inter_op_cpu_affinity);
  t.def(
      "describe",
      [] {
        // The same object `loom threads --json` prints, so both stay one format.
        const std::string json = threading::describe().to_json();
        return nb::module_::import_("json").attr("loads")(json);
      },
      "Every value in force with its source ('api', 'env:LOOM_NUM_INTRAOP_THREADS', "
      "'env:OMP_NUM_THREADS', 'auto'), the CPUs Loom sees and the threads it created, as a dict.");

  m.def(
      "start_runtime", [] { RunReleased([] { return (loom::start_runtime(), 0); }); },
      nb::call_guard<LoomCall>(),
      "Starts the runtime now: freezes the configuration and creates the thread pools (the first "
      "session or op does it otherwise).");
  m.def("runtime_started", &loom::runtime_started);
}

}  // namespace loom::python
