// Fuzz target: external-data resolution (TensorProto.data_location =
// EXTERNAL). The model is built from the input around fuzzer-chosen
// initializers: element type, dims, "location" / "offset" / "length" /
// other entries (paths from a table of legal and hostile ones: "..",
// absolute, links in and out of the folder, a link loop, a FIFO, a folder,
// an empty and a missing file, NUL bytes; numbers from a table of edge
// cases or from the bytes), and the folder the model is loaded from. The
// folder is made once per process. Anything refused must be a loom::Error;
// an initializer that loads must hold exactly its file's bytes at its
// offset (the oracle), and nothing outside the model's folder may be read.
//
// The input is read as: folder choice, initializer count (1-3), per
// initializer [element type, rank (0-3), dims, flags (EXTERNAL, raw_data
// too), entry count (0-4), per entry [key, value]].
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom_onnx/onnx.pb.h"

namespace {

namespace fs = std::filesystem;
using loom_fuzz::Bytes;
using loom_fuzz::Pick;

std::string root;    // <tmp>/loom_fuzz_external_<pid>
std::string folder;  // root + "/model": the model's folder
// File contents by every in-folder location that names a regular file.
std::map<std::string, std::string> contents;

std::string Pattern(size_t size, int seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 7 + seed) & 0xff);
  return bytes;
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void MakeFolder() {
  const char* tmp = std::getenv("TMPDIR");
  root = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/loom_fuzz_external_" +
         std::to_string(getpid());
  folder = root + "/model";
  fs::remove_all(root);
  fs::create_directories(folder + "/sub");
  fs::create_directories(folder + "/dir");
  Write(folder + "/w.bin", Pattern(256, 3));
  Write(folder + "/sub/w.bin", Pattern(64, 101));
  Write(folder + "/empty.bin", "");
  Write(root + "/outside.bin", Pattern(256, 3));  // same bytes: reading it would pass the oracle
  fs::create_symlink("w.bin", folder + "/link_in");
  fs::create_symlink(root + "/outside.bin", folder + "/link_out");
  fs::create_symlink("loop", folder + "/loop");
  mkfifo((folder + "/fifo").c_str(), 0600);
  contents = {{"w.bin", Pattern(256, 3)},       {"./w.bin", Pattern(256, 3)},
              {"link_in", Pattern(256, 3)},     {"sub/w.bin", Pattern(64, 101)},
              {"sub//w.bin", Pattern(64, 101)}, {"empty.bin", ""}};
}

const std::string kLocations[] = {"w.bin",
                                  "./w.bin",
                                  "sub/w.bin",
                                  "sub//w.bin",
                                  "link_in",
                                  "empty.bin",
                                  "sub/../w.bin",
                                  "../outside.bin",
                                  "../model/w.bin",
                                  "link_out",
                                  "loop",
                                  "fifo",
                                  "dir",
                                  "missing.bin",
                                  "w.bin/",
                                  "",
                                  std::string("w.bin\0x", 7),
                                  "/etc/hostname",
                                  "/proc/self/mem",
                                  "sub"};
const char* const kNumbers[] = {"0",
                                "8",
                                "16",
                                "64",
                                "255",
                                "256",
                                "257",
                                "-1",
                                "1e3",
                                " 8",
                                "8 ",
                                "+8",
                                "0x10",
                                "",
                                "4294967296",
                                "9223372036854775807",
                                "9223372036854775808",
                                "18446744073709551615",
                                "-9223372036854775808"};
const char* const kKeys[] = {"location", "offset", "length", "checksum", "basepath", "LOCATION"};
const int32_t kTypes[] = {onnx::TensorProto::FLOAT,     onnx::TensorProto::UINT8,
                          onnx::TensorProto::INT64,     onnx::TensorProto::FLOAT16,
                          onnx::TensorProto::DOUBLE,    onnx::TensorProto::INT32,
                          onnx::TensorProto::BOOL,      onnx::TensorProto::STRING,
                          onnx::TensorProto::UNDEFINED, 99};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("LOOM_MAX_MEMORY", "64M", 1);
  MakeFolder();
  std::atexit([] { fs::remove_all(root); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  std::string model_dir;
  switch (in.Next() % 6) {
    case 0:
      model_dir = folder + "/";
      break;
    case 1:
      model_dir = "";
      break;
    case 2:
      model_dir = root + "/missing";
      break;
    default:
      model_dir = folder;
  }
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("fuzz");
  struct Expected {
    std::string location;
    int64_t offset = 0;
    bool offset_given = false;
  };
  std::vector<Expected> expected;
  const int initializers = 1 + in.Next() % 3;
  for (int i = 0; i < initializers; ++i) {
    const std::string name = "w" + std::to_string(i);
    onnx::TensorProto* tensor = graph->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(Pick(kTypes, in.Next()));
    const int rank = in.Next() % 4;
    for (int d = 0; d < rank; ++d) {
      const uint8_t byte = in.Next();
      tensor->add_dims(byte == 255 ? INT64_MAX : byte == 254 ? -1 : byte % 70);
    }
    const uint8_t flags = in.Next();
    if (flags % 8 != 0) tensor->set_data_location(onnx::TensorProto::EXTERNAL);
    if (flags / 8 % 8 == 1) tensor->set_raw_data(std::string(4, 'r'));
    Expected record;
    const int entries = in.Next() % 5;
    for (int e = 0; e < entries; ++e) {
      onnx::StringStringEntryProto* entry = tensor->add_external_data();
      const std::string key = Pick(kKeys, in.Next());
      entry->set_key(key);
      const uint8_t byte = in.Next();
      if (key == "location") {
        entry->set_value(Pick(kLocations, byte));
        record.location = entry->value();
      } else if (byte % 2 == 0) {
        entry->set_value(Pick(kNumbers, in.Next()));
      } else {
        entry->set_value(std::to_string(in.Next()));
      }
      if (key == "offset") {
        record.offset_given = true;
        record.offset = std::atoll(entry->value().c_str());
      }
    }
    expected.push_back(record);
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type("Identity");
    node->add_input(name);
    node->add_output("y" + std::to_string(i));
    onnx::ValueInfoProto* output = graph->add_output();
    output->set_name("y" + std::to_string(i));
    output->mutable_type()->mutable_tensor_type()->set_elem_type(tensor->data_type());
  }

  loom::Graph loaded;
  try {
    loaded = loom::load_onnx_model_from_bytes(model.SerializeAsString(), model_dir, "fuzz.onnx");
  } catch (const loom::Error&) {
    return 0;
  }
  for (int i = 0; i < initializers; ++i) {
    const onnx::TensorProto& tensor = graph->initializer(i);
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL) continue;
    const Expected& record = expected[i];
    const auto file = contents.find(record.location);
    if (file == contents.end()) {
      std::fprintf(stderr,
                   "external_data_fuzz: '%s' was read, but it is not a file in the folder\n",
                   record.location.c_str());
      std::abort();
    }
    const auto found = loaded.initializers.find(tensor.name());
    if (found == loaded.initializers.end()) continue;  // kept as a constant under another name
    const loom::Tensor& value = found->second;
    if (tensor.data_type() == onnx::TensorProto::BOOL) continue;  // bytes may be normalized
    const std::string bytes(static_cast<const char*>(value.raw_data()), value.nbytes());
    if (file->second.compare(static_cast<size_t>(record.offset), bytes.size(), bytes) != 0) {
      std::fprintf(stderr, "external_data_fuzz: '%s' at offset %lld: the tensor's bytes differ\n",
                   record.location.c_str(), static_cast<long long>(record.offset));
      std::abort();
    }
  }
  return 0;
}
