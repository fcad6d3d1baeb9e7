// The import pipeline (include/loom/onnx.h):
//
//   bytes → ModelProto (protobuf)            truncated / corrupted → error
//         → model-local functions inlined (function_inliner.cc)
//         → default-domain opset in 1..24 (the newest the schema knows);
//           a model that imports none takes its functions' import
//         → unique node names, unsupported ops (one error listing all)
//         → functions at another opset read the same at the model's
//         → each op's version at that opset is one Loom reads (one error)
//         → Graph (graph_converter.cc: initializers, Constants, inputs, nodes)
//         → opset adaptation (opset_adapter.cc)
//         → loom::verify_graph (structure, types, shapes)
//
// Inlining comes first so that every later step sees only operators: the
// unsupported-op list names a body's ops (not "custom::MyBlock"), a
// function's nodes get unique names like any other, and a model whose graph
// holds only function calls gets its opset from the functions. The opset
// step needs to know which functions were called, and the function-opset
// check which opset the model is read at; hence this order.
//
// There is no separate ONNX checker: the parser is generated from the
// pinned onnx package's schema, the version rules know every op's history,
// and Loom's verifier and type inference check the converted graph.
// Every error is rethrown with the model's label (its path) in front.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom_onnx/onnx.pb.h"
#include "onnx_import/function_inliner.h"
#include "onnx_import/graph_converter.h"
#include "onnx_import/model_checks.h"
#include "onnx_import/node_names.h"
#include "onnx_import/opset_adapter.h"

namespace loom {
namespace {

// protobuf parses at most 2 GiB - 1 into one message; larger models keep
// their weights as external data.
constexpr size_t kMaxModelBytes = INT_MAX;

Graph Import(std::string_view bytes, const std::string& model_dir, OnnxModelMetadata* metadata) {
  if (bytes.empty()) throw InvalidArgumentError("the model is empty (0 bytes)");
  if (bytes.size() > kMaxModelBytes) {
    throw InvalidArgumentError("the model is " + std::to_string(bytes.size()) +
                               " bytes; protobuf reads at most 2 GiB (store the weights as "
                               "external data)");
  }
  onnx::ModelProto model;
  // ParseFromArray fails unless the whole buffer is one well-formed message
  // (and nesting stays within protobuf's recursion limit of 100).
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw InvalidArgumentError(
        "not a valid ONNX model: the protobuf data is truncated or "
        "corrupted (" +
        std::to_string(bytes.size()) + " bytes)");
  }
  if (!model.has_graph()) throw InvalidArgumentError("not a valid ONNX model: it has no graph");
  // IR 3 (ONNX 1.0) introduced opset imports; 0 means the field is missing.
  // A newer IR than the schema's still converts: conversion checks what it
  // reads, and unknown fields are kept aside by protobuf, not misread.
  if (model.ir_version() < 3) {
    throw InvalidArgumentError("IR version " + std::to_string(model.ir_version()) +
                               " is not supported (3 or newer; 0: the model does not say)");
  }
  const std::vector<onnx_import::InlinedFunction> functions = onnx_import::InlineFunctions(model);
  const int opset = onnx_import::DefaultDomainOpset(model, functions);
  const std::vector<std::string> names = onnx_import::UniqueNodeNames(model.graph());
  onnx_import::CheckOpsSupported(model.graph(), names);
  onnx_import::CheckFunctionOpsets(functions, opset);
  onnx_import::CheckOpVersions(onnx_import::DefaultDomainOpTypes(model.graph()), opset);
  Graph graph = onnx_import::ConvertGraph(model, names, {model_dir});
  onnx_import::AdaptToLatestOpset(graph, opset, onnx_import::DeclaredRanks(model.graph()));
  verify_graph(graph);
  if (metadata != nullptr) {
    metadata->producer_name = model.producer_name();
    metadata->producer_version = model.producer_version();
    metadata->domain = model.domain();
    metadata->model_version = model.model_version();
    metadata->doc_string = model.doc_string();
    metadata->graph_name = model.graph().name();
    metadata->graph_doc_string = model.graph().doc_string();
    metadata->metadata_props.clear();
    for (const onnx::StringStringEntryProto& entry : model.metadata_props()) {
      metadata->metadata_props[entry.key()] = entry.value();  // a repeated key: the last wins
    }
  }
  return graph;
}

std::string ReadModelFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw InvalidArgumentError("cannot open the model: " + std::string(std::strerror(errno)));
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    throw InvalidArgumentError("not a regular file");
  }
  const auto size = static_cast<size_t>(info.st_size);
  if (size > kMaxModelBytes) {
    close(fd);
    throw InvalidArgumentError("the model is " + std::to_string(size) +
                               " bytes; protobuf reads at most 2 GiB (store the weights as "
                               "external data)");
  }
  std::string bytes(size, '\0');
  size_t done = 0;
  while (done < size) {
    const ssize_t got = read(fd, bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      close(fd);
      throw InvalidArgumentError("read failed: " + std::string(std::strerror(error)));
    }
    if (got == 0) break;  // the file shrank: parse what is there, which then fails
    done += static_cast<size_t>(got);
  }
  close(fd);
  bytes.resize(done);
  return bytes;
}

template <typename Fn>
Graph WithLabel(const std::string& label, Fn&& fn) {
  try {
    return fn();
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(label + ": " + e.what());
  } catch (const RuntimeError& e) {
    throw RuntimeError(label + ": " + e.what());
  }
}

}  // namespace

Graph load_onnx_model(const std::string& path, OnnxModelMetadata* metadata) {
  return WithLabel(path, [&] {
    std::string folder = std::filesystem::path(path).parent_path().string();
    if (folder.empty()) folder = ".";
    return Import(ReadModelFile(path), folder, metadata);
  });
}

Graph load_onnx_model_from_bytes(std::string_view bytes, const std::string& model_dir,
                                 const std::string& label, OnnxModelMetadata* metadata) {
  return WithLabel(label, [&] { return Import(bytes, model_dir, metadata); });
}

}  // namespace loom
