// Fuzz target: ONNX model bytes. Loads (parse, convert, verify), creates a
// session (optimize, plan) and runs it once on small generated inputs when
// every input has a known shape. Malformed or unsupported models must be a
// loom::Error; nothing may crash, hang, leak or allocate past the memory
// cap (a valid model whose tensors are giant is refused, not allocated).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "loom/errors.h"
#include "loom/onnx.h"
#include "loom/session.h"

namespace {

// Inputs larger than this are not generated (the run is skipped).
constexpr int64_t kMaxInputElements = 1 << 16;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Small, so that what the -O0 sanitizer build computes stays under the
  // 10 s hang limit (see eager_ops_fuzz.cc).
  setenv("LOOM_MAX_MEMORY", "64M", 1);
  // One thread: the fuzzer's own thread runs every node.
  setenv("LOOM_NUM_INTRAOP_THREADS", "1", 1);
  setenv("LOOM_NUM_INTEROP_THREADS", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    loom::Graph graph = loom::load_onnx_model_from_bytes(bytes, "", "fuzz.onnx");
    loom::SessionOptions options;
    options.sequential = true;
    loom::Session session(std::move(graph), options);
    std::map<std::string, loom::Tensor> feeds;
    for (const loom::ValueInfo& input : session.inputs()) {
      if (!input.type.shape) return 0;
      std::vector<int64_t> dims;
      int64_t elements = 1;
      for (const loom::Dim& dim : *input.type.shape) {
        if (!dim.is_known() || dim.size() > kMaxInputElements) return 0;
        dims.push_back(dim.size());
        elements *= dim.size();
        if (elements > kMaxInputElements) return 0;
      }
      // Zeros of the input's dtype: every dtype Loom has a tensor for.
      feeds.emplace(input.name, loom::Tensor(input.type.dtype, loom::Shape(dims)));
    }
    session.run(feeds);
  } catch (const loom::Error&) {
  }
  return 0;
}
