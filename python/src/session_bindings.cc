// loom.InferenceSession with ONNX Runtime's calling conventions, so that
// code written for onnxruntime.InferenceSession only changes its import:
//   sess = loom.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
//   name = sess.get_inputs()[0].name
//   (y,) = sess.run(None, {name: x})

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bridge.h"
#include "io_binding.h"
#include "loom/config.h"
#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "session_options.h"

namespace loom::python {
namespace {

// What a profiling session has recorded: every traced run's events, with
// times since profiling started.
class Profile {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Profile(std::string prefix)
      : prefix_(std::move(prefix)),
        start_(Clock::now()),
        start_epoch_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count()) {}

  // When profiling started, in nanoseconds since the Unix epoch.
  int64_t start_epoch_ns() const { return start_epoch_ns_; }

  // Adds one run's trace; `run_start` is when run() was called.
  void Add(Clock::time_point run_start, RunStats stats) {
    const int64_t offset =
        std::chrono::duration_cast<std::chrono::nanoseconds>(run_start - start_).count();
    std::lock_guard lock(mutex_);
    for (TraceEvent& event : stats.trace) {
      event.start_ns += offset;
      event.end_ns += offset;
      events_.push_back(std::move(event));
    }
  }

  // ONNX Runtime's profile format: a JSON array of Chrome trace events,
  // node events with args.op_name. Intra-op helpers' share of a node is an
  // event of its own on the helper's thread (args.role "intra-op helper").
  // Written under the GIL; returns the file's path.
  std::string Write() {
    std::vector<TraceEvent> events;
    {
      std::lock_guard lock(mutex_);
      events.swap(events_);
    }
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H-%M-%S", &local);
    const std::string path = prefix_ + "_" + stamp + ".json";
    const int pid = static_cast<int>(getpid());
    nb::list out;
    std::map<int, std::string> thread_names;
    for (const TraceEvent& event : events) {
      thread_names.emplace(event.tid, event.thread);
      nb::dict args;
      args["op_name"] = event.op;
      args["thread"] = event.thread;
      args["role"] = event.intra_op_helper ? "intra-op helper" : "node";
      nb::dict e;
      e["cat"] = "Node";
      e["name"] = event.node;
      e["ph"] = "X";
      e["pid"] = pid;
      e["tid"] = event.tid;
      e["ts"] = static_cast<double>(event.start_ns) / 1000.0;
      e["dur"] = static_cast<double>(event.end_ns - event.start_ns) / 1000.0;
      e["args"] = args;
      out.append(e);
    }
    for (const auto& [tid, name] : thread_names) {
      nb::dict args;
      args["name"] = name;
      nb::dict e;
      e["name"] = "thread_name";
      e["ph"] = "M";
      e["pid"] = pid;
      e["tid"] = tid;
      e["args"] = args;
      out.append(e);
    }
    nb::module_ json = nb::module_::import_("json");
    nb::object file = nb::module_::import_("builtins").attr("open")(path, "w");
    try {
      json.attr("dump")(out, file);
    } catch (...) {
      file.attr("close")();
      throw;
    }
    file.attr("close")();
    return path;
  }

 private:
  const std::string prefix_;
  const Clock::time_point start_;
  const int64_t start_epoch_ns_;
  std::mutex mutex_;
  std::vector<TraceEvent> events_;  // guarded by mutex_
};

// ONNX Runtime's element type strings.
std::string OrtTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "tensor(float)";
    case DType::kFloat64:
      return "tensor(double)";
    case DType::kFloat16:
      return "tensor(float16)";
    case DType::kInt8:
      return "tensor(int8)";
    case DType::kUInt8:
      return "tensor(uint8)";
    case DType::kInt32:
      return "tensor(int32)";
    case DType::kInt64:
      return "tensor(int64)";
    case DType::kBool:
      return "tensor(bool)";
    case DType::kUInt16:
      return "tensor(uint16)";
    case DType::kUInt32:
      return "tensor(uint32)";
    case DType::kUInt64:
      return "tensor(uint64)";
    case DType::kInt16:
      return "tensor(int16)";
    case DType::kBFloat16:
      return "tensor(bfloat16)";
    case DType::kString:
      return "tensor(string)";
  }
  return "tensor(unknown)";
}

struct NodeArg {
  std::string name;
  nb::object shape;  // list of int / str / None, or None when the rank is unknown
  std::string type;
};

struct ModelMetadataFields {
  ModelMetadataFields(std::string producer, std::string graph, std::string domain_, std::string doc,
                      std::string graph_doc, int64_t version_, nb::dict map)
      : producer_name(std::move(producer)),
        graph_name(std::move(graph)),
        domain(std::move(domain_)),
        description(std::move(doc)),
        graph_description(std::move(graph_doc)),
        version(version_),
        custom(std::move(map)) {}
  std::string producer_name;
  std::string graph_name;
  std::string domain;
  std::string description;
  std::string graph_description;
  int64_t version;
  nb::dict custom;  // a copy is handed out, so callers cannot change it
};

// ONNX Runtime's type strings: "tensor(float)", "seq(tensor(float))",
// "optional(tensor(float))", "optional(seq(tensor(float)))".
std::string OrtTypeName(const TensorType& type) {
  const std::string tensor = OrtTypeName(type.dtype);
  switch (type.kind) {
    case ValueKind::kTensor:
      return tensor;
    case ValueKind::kSequence:
      return "seq(" + tensor + ")";
    case ValueKind::kOptionalTensor:
      return "optional(" + tensor + ")";
    case ValueKind::kOptionalSequence:
      return "optional(seq(" + tensor + "))";
  }
  return tensor;
}

NodeArg ToNodeArg(const ValueInfo& info) {
  NodeArg arg{info.name, nb::none(), OrtTypeName(info.type)};
  // As ONNX Runtime: a sequence's shape is [] (its elements' shapes may
  // differ); an optional tensor shows the tensor's.
  if (info.type.holds_sequence()) {
    arg.shape = nb::list();
  } else if (info.type.shape) {
    nb::list dims;
    for (const Dim& dim : *info.type.shape) {
      // ONNX Runtime shows a size the model leaves unnamed as None.
      if (dim.is_known()) {
        dims.append(dim.size());
      } else if (dim.is_invented()) {
        dims.append(nb::none());
      } else {
        dims.append(dim.symbol());
      }
    }
    arg.shape = dims;
  }
  return arg;
}

Graph LoadModel(nb::handle path_or_bytes, OnnxModelMetadata* metadata) {
  if (nb::isinstance<nb::bytes>(path_or_bytes) || PyByteArray_Check(path_or_bytes.ptr())) {
    std::string bytes = nb::isinstance<nb::bytes>(path_or_bytes)
                            ? std::string(nb::borrow<nb::bytes>(path_or_bytes).c_str(),
                                          nb::borrow<nb::bytes>(path_or_bytes).size())
                            : std::string(PyByteArray_AsString(path_or_bytes.ptr()),
                                          PyByteArray_Size(path_or_bytes.ptr()));
    return RunReleased([&] { return load_onnx_model_from_bytes(bytes, "", "<bytes>", metadata); });
  }
  nb::object path =
      nb::module_::import_("os").attr("fspath")(path_or_bytes);  // TypeError otherwise
  if (!nb::isinstance<nb::str>(path)) {
    throw nb::type_error("InferenceSession: a model path must be str or os.PathLike of str");
  }
  const std::string file = nb::cast<std::string>(path);
  // A missing file is Python's FileNotFoundError (errno, message, path), as
  // open() raises; a directory or an unreadable file stays Loom's error.
  if (!nb::cast<bool>(nb::module_::import_("os").attr("path").attr("exists")(path))) {
    nb::object error = nb::module_::import_("builtins")
                           .attr("FileNotFoundError")(2, "InferenceSession: no model file", path);
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    throw nb::python_error();
  }
  return RunReleased([&] { return load_onnx_model(file, metadata); });
}

// Providers as ONNX Runtime takes them: names or (name, options) pairs, and
// provider_options beside them. Loom is a CPU runtime: like ONNX Runtime
// with a provider it lacks, it warns and runs on the CPU; options it would
// not apply warn too, rather than vanish.
void CheckProviders(nb::handle providers, nb::handle provider_options) {
  std::vector<std::string> warnings;
  auto check_options = [&](const std::string& provider, nb::handle options) {
    if (provider == "CPUExecutionProvider" && !options.is_none() && nb::len(options) > 0) {
      warnings.push_back("Loom does not apply CPUExecutionProvider options " +
                         nb::cast<std::string>(nb::repr(options)) +
                         "; threads are set through SessionOptions or loom.config.threading");
    }
  };
  if (!providers.is_none()) {
    for (nb::handle entry : providers) {
      const bool pair = nb::isinstance<nb::tuple>(entry);
      const std::string provider = nb::cast<std::string>(nb::str(pair ? entry[0] : entry));
      if (provider != "CPUExecutionProvider") {
        warnings.push_back("provider '" + provider +
                           "' is not available in Loom (a CPU runtime); running on "
                           "CPUExecutionProvider");
      }
      if (pair) check_options(provider, entry[1]);
    }
  }
  if (!provider_options.is_none() && !providers.is_none()) {
    size_t index = 0;
    for (nb::handle options : provider_options) {
      if (index >= nb::len(providers)) break;
      nb::handle entry = providers[index++];
      const bool pair = nb::isinstance<nb::tuple>(entry);
      check_options(nb::cast<std::string>(nb::str(pair ? entry[0] : entry)), options);
    }
  }
  RaiseAsPythonWarnings(warnings);
}

class InferenceSession {
 public:
  InferenceSession(nb::handle path_or_bytes, std::optional<PySessionOptions> sess_options,
                   nb::handle providers, nb::handle provider_options,
                   std::optional<int> intra_op_num_threads,
                   std::optional<int> inter_op_num_threads) {
    const PySessionOptions so = sess_options.value_or(PySessionOptions{});
    // log_severity_level 3 (error) or 4 (fatal) silences the warnings
    // raised while the session is created, as ONNX Runtime's does its log.
    const bool quiet = so.log_severity_level >= 3;
    if (!quiet) CheckProviders(providers, provider_options);
    const int intra = intra_op_num_threads.value_or(so.intra_op_num_threads);
    const int inter = inter_op_num_threads.value_or(so.inter_op_num_threads);
    if (intra < 0 || inter < 0) {
      throw InvalidArgumentError(
          "InferenceSession: intra_op_num_threads and inter_op_num_threads must be >= 0 "
          "(0 = the global setting), got " +
          std::to_string(intra) + " and " + std::to_string(inter));
    }
    SessionOptions options = so.ToSessionOptions();
    // A count given for this session means private pools, as in ONNX
    // Runtime; the other count then comes from the global configuration.
    if (intra > 0 || inter > 0 || so.use_per_session_threads) {
      options.use_private_thread_pools = true;
      options.intra_op_threads =
          intra > 0 ? intra : config::threading::get_intra_op_parallelism_threads();
      options.inter_op_threads =
          inter > 0 ? inter : config::threading::get_inter_op_parallelism_threads();
    }
    Graph graph = LoadModel(path_or_bytes, &metadata_);
    const std::vector<std::string> unused = OverrideFreeDimensions(graph, so);
    std::vector<std::string> warnings;
    for (const std::string& name : unused) {
      warnings.push_back(
          "SessionOptions.add_free_dimension_override_by_name: no input of the "
          "model has a dimension named '" +
          name + "'");
    }
    if (!quiet) RaiseAsPythonWarnings(warnings);
    auto create = [&] { return std::make_shared<Session>(std::move(graph), options); };
    if (quiet) {
      WarningCapture silenced;  // collects the warnings, which are dropped
      ReleaseGil release;
      session_ = create();
    } else {
      session_ = RunReleased(create);
    }
    if (!so.optimized_model_filepath.empty()) {
      RunReleased([&] {
        save_onnx_model(session_->graph(), so.optimized_model_filepath);
        return 0;
      });
    }
    if (so.enable_profiling) profile_ = std::make_shared<Profile>(so.profile_file_prefix);
    options_ = so;
    options_.intra_op_num_threads = session_->intra_op_threads();
    options_.inter_op_num_threads = session_->inter_op_threads();
  }

  // Fixes the inputs' dimensions named in `so`'s free-dimension overrides;
  // returns the names no input dimension has.
  static std::vector<std::string> OverrideFreeDimensions(Graph& graph, const PySessionOptions& so) {
    std::vector<std::string> unused;
    for (const auto& [name, size] : so.free_dimension_overrides) {
      bool found = false;
      for (ValueInfo& input : graph.inputs) {
        if (!input.type.shape) continue;
        for (Dim& dim : *input.type.shape) {
          if (!dim.is_known() && dim.symbol() == name) {
            dim = Dim(size);
            found = true;
          }
        }
      }
      if (!found) unused.push_back(name);
    }
    return unused;
  }

  // Destroying a session joins its private pools' workers. One of them may
  // be dropping a finished run's last reference to a NumPy input just then,
  // which takes the GIL (SharePyObject): holding the GIL here would deadlock.
  ~InferenceSession() {
    if (session_ == nullptr) return;
    ReleaseGil release;
    session_.reset();
  }

  nb::list Run(nb::handle output_names, nb::handle input_feed, nb::handle run_options) const {
    RunOptions options = ToRunOptions(run_options);
    // A bare string would iterate as characters ("no value named 'o'").
    if (nb::isinstance<nb::str>(output_names)) {
      throw nb::type_error(
          ("InferenceSession.run: output_names must be a list of output names or None, not a "
           "str (write ['" +
           nb::cast<std::string>(output_names) + "'])")
              .c_str());
    }
    std::shared_ptr<Profile> profile;
    {
      std::lock_guard lock(profile_mutex_);
      profile = profile_;
    }
    options.trace = profile != nullptr;
    std::vector<std::string> fetches;
    if (!output_names.is_none()) {
      for (nb::handle name : output_names) {
        if (!nb::isinstance<nb::str>(name)) {
          throw nb::type_error(("InferenceSession.run: output_names must hold str, got " +
                                nb::cast<std::string>(nb::repr(name.type())))
                                   .c_str());
        }
        fetches.push_back(nb::cast<std::string>(name));
      }
    }
    if (!nb::isinstance<nb::dict>(input_feed)) {
      throw nb::type_error("InferenceSession.run: input_feed must be a dict {input name: array}");
    }
    std::map<std::string, Value> feeds;
    for (auto [key, value] : nb::borrow<nb::dict>(input_feed)) {
      if (!nb::isinstance<nb::str>(key)) {
        throw nb::type_error("InferenceSession.run: input_feed keys must be input names (str)");
      }
      const std::string name = nb::cast<std::string>(key);
      feeds.emplace(name, ValueFromPython(name, value));
    }
    std::vector<Value> outputs = RunReleased([&] {
      const Profile::Clock::time_point start = Profile::Clock::now();
      RunStats stats;
      std::vector<Value> results =
          session_->run_values(feeds, fetches, options, profile ? &stats : nullptr);
      if (profile) profile->Add(start, std::move(stats));
      std::vector<const Tensor*> inputs;
      for (const auto& [name, value] : feeds) {
        if (value.is_tensor()) inputs.push_back(&value.tensor());
        if (value.is_sequence()) {
          for (const Tensor& element : value.elements()) inputs.push_back(&element);
        }
      }
      for (Value& result : results) {
        if (result.is_tensor()) result = Unaliased(std::move(result.tensor()), inputs);
        if (result.is_sequence()) {
          for (Tensor& element : result.elements()) element = Unaliased(std::move(element), inputs);
        }
      }
      return results;
    });
    nb::list results;
    const std::vector<ValueInfo>& declared = session_->outputs();
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& name = fetches.empty() ? declared.at(i).name : fetches[i];
      results.append(
          ValueToPython(std::move(outputs[i]), "InferenceSession.run: output '" + name + "'"));
    }
    return results;
  }

  // As ONNX Runtime: a sequence output is a list of arrays, an empty
  // optional None.
  static nb::object ValueToPython(Value value, const std::string& what) {
    if (value.is_none()) return nb::none();
    if (value.is_tensor()) return ArrayFromTensor(std::move(value.tensor()), what);
    nb::list elements;
    std::vector<Tensor>& tensors = value.elements();
    for (size_t i = 0; i < tensors.size(); ++i) {
      elements.append(
          ArrayFromTensor(std::move(tensors[i]), what + " element " + std::to_string(i)));
    }
    return elements;
  }

  // A feed as ONNX Runtime takes it: for a sequence input a list (or tuple)
  // of arrays, for an optional input None too; else an array.
  Value ValueFromPython(const std::string& name, nb::handle value) const {
    const std::string what = "InferenceSession.run: input '" + name + "'";
    const ValueInfo* input = nullptr;
    for (const ValueInfo& info : session_->inputs()) {
      if (info.name == name) input = &info;
    }
    if (input != nullptr && input->type.is_optional() && value.is_none()) return Value::None();
    if (input == nullptr || !input->type.holds_sequence()) {
      return TensorFromPython(AsInputArray(name, value), what);
    }
    if (!nb::isinstance<nb::list>(value) && !nb::isinstance<nb::tuple>(value)) {
      throw nb::type_error((what + " is " + OrtTypeName(input->type) +
                            ": feed a list of arrays, not " +
                            nb::cast<std::string>(nb::repr(value.type())))
                               .c_str());
    }
    std::vector<Tensor> elements;
    size_t i = 0;
    for (nb::handle element : value) {
      elements.push_back(
          TensorFromPython(AsInputArray(name, element), what + " element " + std::to_string(i++)));
    }
    return Value::Sequence(input->type.dtype, std::move(elements));
  }

  // A list, tuple or Python scalar fed for an input becomes an array of the
  // input's declared type, as ONNX Runtime converts it (NumPy alone would
  // make float64 of [1.0, 2.0]); arrays pass through unchanged.
  nb::object AsInputArray(const std::string& name, nb::handle value) const {
    nb::handle numpy = NumPy();
    if (nb::isinstance(value, numpy.attr("ndarray"))) return nb::borrow(value);
    for (const ValueInfo& input : session_->inputs()) {
      // NumPy has no bfloat16; strings are read from the list as they are.
      if (input.name == name && input.type.dtype != DType::kBFloat16 &&
          input.type.dtype != DType::kString) {
        const std::string dtype(dtype_name(input.type.dtype));
        try {
          return numpy.attr("asarray")(value, nb::arg("dtype") = dtype);
        } catch (const nb::python_error& error) {
          throw InvalidArgumentError("InferenceSession.run: input '" + name + "': cannot read " +
                                     nb::cast<std::string>(nb::repr(value.type())) + " as " +
                                     dtype + " (" + error.what() + ")");
        }
      }
    }
    return nb::borrow(value);
  }

  std::string Repr() const {
    auto names = [](const std::vector<ValueInfo>& infos) {
      std::string out;
      for (const ValueInfo& info : infos) out += (out.empty() ? "'" : ", '") + info.name + "'";
      return "[" + out + "]";
    };
    return "<loom.InferenceSession inputs=" + names(session_->inputs()) +
           " outputs=" + names(session_->outputs()) +
           " intra_op_num_threads=" + std::to_string(session_->intra_op_threads()) +
           " inter_op_num_threads=" + std::to_string(session_->inter_op_threads()) + ">";
  }

  PySessionOptions SessionOptionsCopy() const { return options_; }

  std::vector<NodeArg> Inputs() const { return ToNodeArgs(session_->inputs()); }
  std::vector<NodeArg> Outputs() const { return ToNodeArgs(session_->outputs()); }
  int IntraOpThreads() const { return session_->intra_op_threads(); }
  int InterOpThreads() const { return session_->inter_op_threads(); }

  // ONNX Runtime's ModelMetadata fields.
  ModelMetadataFields ModelMeta() const {
    nb::dict custom;
    for (const auto& [key, value] : metadata_.metadata_props) custom[key.c_str()] = value;
    return ModelMetadataFields(metadata_.producer_name, metadata_.graph_name, metadata_.domain,
                               metadata_.doc_string, metadata_.graph_doc_string,
                               metadata_.model_version, custom);
  }

  // Inputs with a default value (an initializer the model also lists as an
  // input), which a feed may override.
  std::vector<NodeArg> OverridableInitializers() const {
    std::vector<NodeArg> args;
    for (const ValueInfo& input : session_->inputs()) {
      if (session_->graph().initializers.count(input.name) != 0) args.push_back(ToNodeArg(input));
    }
    return args;
  }

  int64_t ProfilingStartNs() const {
    std::lock_guard lock(profile_mutex_);
    return profile_ ? profile_->start_epoch_ns() : 0;
  }

  // As onnxruntime: writes the profile of the runs since the session was
  // created with enable_profiling and returns the file's path; "" when
  // profiling is off. Later runs are not profiled.
  std::string EndProfiling() {
    std::shared_ptr<Profile> profile;
    {
      std::lock_guard lock(profile_mutex_);
      profile.swap(profile_);
    }
    return profile ? profile->Write() : std::string();
  }

 private:
  static std::vector<NodeArg> ToNodeArgs(const std::vector<ValueInfo>& infos) {
    std::vector<NodeArg> args;
    for (const ValueInfo& info : infos) args.push_back(ToNodeArg(info));
    return args;
  }

  std::shared_ptr<Session> session_;
  OnnxModelMetadata metadata_;
  PySessionOptions options_;  // as given, with the thread counts in force
  mutable std::mutex profile_mutex_;
  std::shared_ptr<Profile> profile_;  // guarded; null when not profiling
};

}  // namespace

void BindSession(nb::module_& m) {
  nb::class_<ModelMetadataFields>(m, "ModelMetadata",
                                  "What the model says about itself, as "
                                  "onnxruntime.ModelMetadata.")
      .def_ro("producer_name", &ModelMetadataFields::producer_name)
      .def_ro("graph_name", &ModelMetadataFields::graph_name)
      .def_ro("domain", &ModelMetadataFields::domain)
      .def_ro("description", &ModelMetadataFields::description)
      .def_ro("graph_description", &ModelMetadataFields::graph_description)
      .def_ro("version", &ModelMetadataFields::version)
      .def_prop_ro("custom_metadata_map",
                   [](const ModelMetadataFields& meta) { return nb::dict(meta.custom); })
      .def("__repr__", [](const ModelMetadataFields& meta) {
        return "ModelMetadata(producer_name='" + meta.producer_name + "', graph_name='" +
               meta.graph_name + "', domain='" + meta.domain +
               "', version=" + std::to_string(meta.version) + ")";
      });

  nb::class_<NodeArg>(m, "NodeArg", "A graph input or output: name, shape, type.")
      .def_ro("name", &NodeArg::name)
      .def_prop_ro("shape", [](const NodeArg& arg) { return arg.shape; })
      .def_ro("type", &NodeArg::type)
      .def("__repr__", [](const NodeArg& arg) {
        return "NodeArg(name='" + arg.name + "', type='" + arg.type +
               "', shape=" + nb::cast<std::string>(nb::repr(arg.shape)) + ")";
      });

  m.def(
      "get_available_providers", [] { return std::vector<std::string>{"CPUExecutionProvider"}; },
      "As onnxruntime.get_available_providers(): Loom has the CPU only.");
  m.def(
      "get_device", [] { return std::string("CPU"); }, "As onnxruntime.get_device().");

  nb::class_<InferenceSession>(
      m, "InferenceSession",
      "Loads an ONNX model (a path, or the model's bytes) and runs it; the calling conventions "
      "of onnxruntime.InferenceSession. intra_op_num_threads / inter_op_num_threads (or a "
      "SessionOptions) above 0 give this session private thread pools; otherwise it shares the "
      "global pools. run() releases the GIL and may be called from many threads at once.")
      .def(nb::init<nb::handle, std::optional<PySessionOptions>, nb::handle, nb::handle,
                    std::optional<int>, std::optional<int>>(),
           nb::arg("path_or_bytes"), nb::arg("sess_options").none() = nb::none(),
           nb::arg("providers").none() = nb::none(),
           nb::arg("provider_options").none() = nb::none(), nb::kw_only(),
           nb::arg("intra_op_num_threads") = nb::none(),
           nb::arg("inter_op_num_threads") = nb::none(), nb::call_guard<LoomCall>())
      .def("run", &InferenceSession::Run, nb::arg("output_names").none(), nb::arg("input_feed"),
           nb::arg("run_options").none() = nb::none(), nb::call_guard<LoomCall>(),
           "Runs the model: output_names (None = all outputs) and {input name: ndarray} -> list "
           "of ndarrays. As in ONNX Runtime, a sequence input takes a list of arrays and a "
           "sequence output is one; an optional input takes None (or is left out), an empty "
           "optional output is None.")
      .def("end_profiling", &InferenceSession::EndProfiling,
           "Writes the runs' profile (SessionOptions.enable_profiling) as a Chrome/Perfetto "
           "trace, ONNX Runtime's format: a JSON array of events, node events with "
           "args.op_name; intra-op helpers' share of a node on the helper's thread. Returns the "
           "file's path, or '' when profiling is off.")
      .def("get_session_options", &InferenceSession::SessionOptionsCopy,
           "A copy of the options the session was created with, the thread counts as in force.")
      .def("__repr__", &InferenceSession::Repr)
      .def("get_inputs", &InferenceSession::Inputs)
      .def("get_modelmeta", &InferenceSession::ModelMeta,
           "The model's producer, graph name, domain, descriptions, version and "
           "metadata_props, as onnxruntime.ModelMetadata.")
      .def("get_overridable_initializers", &InferenceSession::OverridableInitializers,
           "Inputs with a default value (an initializer also listed as an input).")
      .def("get_profiling_start_time_ns", &InferenceSession::ProfilingStartNs,
           "When profiling started (ns since the Unix epoch); 0 when not profiling.")
      .def("get_provider_options",
           [](const InferenceSession&) {
             nb::dict options;
             options["CPUExecutionProvider"] = nb::dict();
             return options;
           })
      .def(
          "set_providers",
          [](InferenceSession&, nb::handle providers, nb::handle provider_options) {
            CheckProviders(providers, provider_options);
          },
          nb::arg("providers").none() = nb::none(), nb::arg("provider_options").none() = nb::none(),
          "Loom runs on the CPU whatever the providers; others warn, as at creation.")
      .def(
          "disable_fallback", [](InferenceSession&) {},
          "Nothing to do: Loom has no other provider to fall back from.")
      .def(
          "enable_fallback", [](InferenceSession&) {},
          "Nothing to do: Loom has no other provider to fall back from.")
      .def(
          "io_binding", [](nb::handle self) { return IoBinding(nb::borrow(self)); },
          "An IOBinding for this session, as onnxruntime's.")
      .def(
          "run_with_iobinding",
          [](nb::handle self, IoBinding& binding, nb::handle run_options) {
            binding.Run(self, run_options);
          },
          nb::arg("iobinding"), nb::arg("run_options").none() = nb::none(),
          nb::call_guard<LoomCall>())
      .def(
          "run_with_ort_values",
          [](nb::handle self, nb::handle output_names, nb::handle input_dict_ort_values,
             nb::handle run_options) {
            return RunWithOrtValues(self, output_names, input_dict_ort_values, run_options);
          },
          nb::arg("output_names").none(), nb::arg("input_dict_ort_values"),
          nb::arg("run_options").none() = nb::none(), nb::call_guard<LoomCall>())
      .def("get_outputs", &InferenceSession::Outputs)
      .def("get_providers",
           [](const InferenceSession&) { return std::vector<std::string>{"CPUExecutionProvider"}; })
      .def_prop_ro("intra_op_num_threads", &InferenceSession::IntraOpThreads,
                   "Threads one op of this session may use.")
      .def_prop_ro("inter_op_num_threads", &InferenceSession::InterOpThreads,
                   "Ops of one run that may run at once.");
}

}  // namespace loom::python
