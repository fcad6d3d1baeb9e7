#include "onnx_import/conformance/case_runner.h"

#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "kernels/onnx_dtype.h"
#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"
#include "loom_onnx/onnx_data.pb.h"
#include "onnx_import/conformance/unsupported_features.h"
#include "onnx_import/tensor_proto.h"

namespace loom::conformance {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgumentError("cannot open " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw InvalidArgumentError("cannot read " + path);
  return std::move(bytes).str();
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

// Thrown when a data file holds a tensor Loom cannot represent.
struct UnsupportedData {
  std::string reason;
};

// One case in progress: the parsed model, the scan, and the verdict so far.
class CaseRun {
 public:
  CaseRun(const ConformanceCase& test_case, const RunnerOptions& options, CaseResult& result)
      : case_(test_case), options_(options), result_(result) {}

  void Run() {
    const std::string model_path = (fs::path(case_.dir) / "model.onnx").string();
    const std::string bytes = ReadFile(model_path);
    onnx::ModelProto model;
    if (model.ParseFromString(bytes)) {
      result_.op_types = OpTypes(model);
      unsupported_ = FindUnsupportedFeatures(model);
      for (const onnx::TensorProto& t : model.graph().initializer()) initializers_.insert(t.name());
      for (const onnx::ValueInfoProto& v : model.graph().input()) {
        if (initializers_.count(v.name()) == 0) inputs_.push_back(v.name());
      }
      for (const onnx::ValueInfoProto& v : model.graph().output()) outputs_.push_back(v.name());
    }

    std::optional<Session> session;
    try {
      session.emplace(load_onnx_model_from_bytes(bytes, case_.dir, model_path));
    } catch (const std::exception& e) {
      SetError("load", e.what());
      return;
    }
    loaded_ = true;
    for (size_t i = 0; i < case_.data_sets.size(); ++i) {
      if (!RunDataSet(*session, case_.data_sets[i], i)) return;
      ++result_.data_sets_run;
    }
    if (case_.data_sets.empty()) {
      result_.status = CaseStatus::kFailed;
      result_.reason = "no test_data_set_* folder";
      return;
    }
    result_.status = CaseStatus::kPassed;
  }

  // Classifies an error raised at `stage`: the model scan first (only for
  // errors before the model loaded: once the importer has accepted it, what
  // the scan lists was handled), then the message.
  void SetError(const std::string& stage, const std::string& message) {
    if (!loaded_ && !unsupported_.empty()) {
      result_.status = CaseStatus::kUnsupported;
      result_.unsupported = unsupported_;
      result_.reason = Join(unsupported_, ", ");
    } else if (IsDeliberateLimit(message)) {
      result_.status = CaseStatus::kUnsupported;
      result_.reason = stage + ": " + message;
    } else {
      result_.status = CaseStatus::kFailed;
      result_.reason = stage + ": " + message;
    }
  }

 private:
  // Returns false once the verdict is set (an error or a mismatch).
  bool RunDataSet(const Session& session, const std::string& dir, size_t index) {
    const std::string stage = "data set " + std::to_string(index);
    std::map<std::string, Value> feeds;
    std::vector<std::pair<std::string, Value>> expected;
    try {
      const std::vector<std::string> input_files = DataFiles(dir, "input");
      for (size_t k = 0; k < input_files.size(); ++k) {
        auto [name, value] = ReadData(input_files[k], k, inputs_, session.inputs());
        feeds.emplace(std::move(name), std::move(value));
      }
      const std::vector<std::string> output_files = DataFiles(dir, "output");
      for (size_t k = 0; k < output_files.size(); ++k) {
        expected.push_back(ReadData(output_files[k], k, outputs_, session.outputs()));
      }
    } catch (const UnsupportedData& u) {
      result_.status = CaseStatus::kUnsupported;
      result_.reason = stage + ": " + u.reason;
      return false;
    } catch (const std::exception& e) {
      SetError(stage, e.what());
      return false;
    }

    std::vector<std::string> fetches;
    for (const auto& [name, value] : expected) fetches.push_back(name);
    std::vector<Value> actual;
    try {
      actual = session.run_values(feeds, fetches);
    } catch (const std::exception& e) {
      SetError(stage + ": run", e.what());
      return false;
    }
    for (size_t k = 0; k < expected.size(); ++k) {
      auto mismatch = CompareValues(expected[k].second, actual[k], options_.tolerance);
      if (!mismatch) continue;
      result_.status = CaseStatus::kFailed;
      result_.reason = stage + ": output '" + expected[k].first + "': " + *mismatch;
      return false;
    }
    return true;
  }

  // Reads <prefix>_<k>.pb and names it: its own name when it is one of
  // `session_values`, else the k-th of `positional`. The k-th value's type
  // says what the file holds: a TensorProto, or for a sequence or an
  // optional a SequenceProto or an OptionalProto (onnx-data.proto).
  std::pair<std::string, Value> ReadData(const std::string& path, size_t k,
                                         const std::vector<std::string>& positional,
                                         const std::vector<ValueInfo>& session_values) {
    const std::string file = fs::path(path).filename().string();
    const ValueInfo* info = nullptr;
    for (const ValueInfo& v : session_values) {
      if (k < positional.size() && v.name == positional[k]) info = &v;
    }
    if (info != nullptr && !info->type.is_tensor()) {
      return {info->name, ReadNonTensor(path, file, info->type)};
    }
    onnx::TensorProto proto;
    if (!proto.ParseFromString(ReadFile(path))) {
      throw InvalidArgumentError(file + " is not a TensorProto");
    }
    if (!kernels::DTypeFromOnnxDataType(proto.data_type())) {
      const std::string type = onnx::TensorProto_DataType_IsValid(proto.data_type())
                                   ? onnx::TensorProto_DataType_Name(
                                         static_cast<onnx::TensorProto_DataType>(proto.data_type()))
                                   : std::to_string(proto.data_type());
      throw UnsupportedData{file + " has element type " + type + ", which Loom lacks"};
    }
    std::string name = proto.name();
    bool known = false;
    for (const ValueInfo& v : session_values) known = known || v.name == name;
    if (!known) {
      if (k >= positional.size()) {
        throw InvalidArgumentError(file + " ('" + name +
                                   "') matches no graph value (the model has " +
                                   std::to_string(positional.size()) + ")");
      }
      name = positional[k];
    }
    return {name, ReadTensor(proto, file)};
  }

  static Tensor ReadTensor(const onnx::TensorProto& proto, const std::string& file) {
    if (!kernels::DTypeFromOnnxDataType(proto.data_type())) {
      throw UnsupportedData{file + " has a tensor of element type " +
                            std::to_string(proto.data_type()) + ", which Loom lacks"};
    }
    onnx_import::ExternalDataPolicy policy{.model_dir = ""};
    return onnx_import::TensorFromProto(proto, policy, file);
  }

  static Value ReadSequence(const onnx::SequenceProto& proto, const std::string& file,
                            DType dtype) {
    if (proto.elem_type() != onnx::SequenceProto::TENSOR && proto.tensor_values_size() == 0 &&
        proto.elem_type() != onnx::SequenceProto::UNDEFINED) {
      throw UnsupportedData{file + " is a sequence of non-tensors, which Loom lacks"};
    }
    std::vector<Tensor> elements;
    for (const onnx::TensorProto& tensor : proto.tensor_values()) {
      elements.push_back(ReadTensor(tensor, file));
    }
    if (!elements.empty()) dtype = elements[0].dtype();
    return Value::Sequence(dtype, std::move(elements));
  }

  static Value ReadNonTensor(const std::string& path, const std::string& file,
                             const TensorType& type) {
    const std::string bytes = ReadFile(path);
    if (type.kind == ValueKind::kSequence) {
      onnx::SequenceProto proto;
      if (!proto.ParseFromString(bytes))
        throw InvalidArgumentError(file + " is not a SequenceProto");
      return ReadSequence(proto, file, type.dtype);
    }
    onnx::OptionalProto proto;
    if (!proto.ParseFromString(bytes))
      throw InvalidArgumentError(file + " is not an OptionalProto");
    switch (proto.elem_type()) {
      case onnx::OptionalProto::UNDEFINED:
        return Value::None();
      case onnx::OptionalProto::TENSOR:
        return ReadTensor(proto.tensor_value(), file);
      case onnx::OptionalProto::SEQUENCE:
        return ReadSequence(proto.sequence_value(), file, type.dtype);
      default:
        throw UnsupportedData{file + " is an optional of " + std::to_string(proto.elem_type()) +
                              ", which Loom lacks"};
    }
  }

  const ConformanceCase& case_;
  const RunnerOptions& options_;
  CaseResult& result_;
  std::vector<std::string> unsupported_;
  bool loaded_ = false;
  std::set<std::string> initializers_;
  std::vector<std::string> inputs_;   // graph inputs without an initializer, in order
  std::vector<std::string> outputs_;  // graph outputs, in order
};

}  // namespace

std::string_view CaseStatusName(CaseStatus status) {
  switch (status) {
    case CaseStatus::kPassed:
      return "passed";
    case CaseStatus::kFailed:
      return "failed";
    case CaseStatus::kUnsupported:
      return "unsupported";
  }
  return "failed";
}

CaseResult RunCase(const ConformanceCase& test_case, const RunnerOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result;
  result.id = test_case.id();
  CaseRun run(test_case, options, result);
  try {
    run.Run();
  } catch (const std::exception& e) {
    run.SetError("case", e.what());
  } catch (...) {
    result.status = CaseStatus::kFailed;
    result.reason = "case: unknown exception";
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace loom::conformance
