// Fuzz target: graphs built through the public GraphBuilder from
// fuzzer-chosen inputs (dtypes, known and symbolic dims), ops, operand
// wiring, constants and attributes; then verified, optimized at a
// fuzzer-chosen level and run on small inputs. A graph the builder or the
// session refuses must be a loom::Error. Three oracles besides the
// sanitizers: the graph written as ONNX must load back; the optimized
// session must agree with an unoptimized one (level 0) where both run:
// integers and bools bit for bit, float32/float64 within a loose tolerance
// (fusions reorder arithmetic); and the optimized graph must verify.
//
// The input is read as: graph inputs (1-3: dtype, rank 0-4, per dim a byte:
// a multiple of 4 is one of three symbols, else its value % 9), symbol
// sizes (3 bytes, 0-4), nodes (0-8: op (2 bytes), operand count (0-3), per
// operand a byte: absent / a constant (fuzz_input.h's ReadTensor) / an
// existing value, attributes (ReadAttributes), output count (1-3)), graph
// outputs (1-3 values), optimization level, then the input elements.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "loom/errors.h"
#include "loom/graph.h"
#include "loom/onnx.h"
#include "loom/ops.h"
#include "loom/session.h"

namespace {

using loom_fuzz::Bytes;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "graph_builder_fuzz: %s\n", what.c_str());
  std::abort();
}

template <typename T>
bool Close(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  const T scale = std::max<T>({T(1), std::fabs(a), std::fabs(b)});
  return std::fabs(a - b) <= T(1e-2) * scale;
}

template <typename T>
bool AllClose(const loom::Tensor& a, const loom::Tensor& b) {
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (!Close(a.data<T>()[i], b.data<T>()[i])) return false;
  }
  return true;
}

bool Agree(const loom::Tensor& a, const loom::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape().dims() != b.shape().dims()) return false;
  switch (a.dtype()) {
    case loom::DType::kFloat32:
      return AllClose<float>(a, b);
    case loom::DType::kFloat64:
      return AllClose<double>(a, b);
    case loom::DType::kFloat16:
    case loom::DType::kBFloat16:
      return true;  // rounding between fused and unfused forms differs too much to compare
    default:
      return a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
  }
}

// Small values: float inputs from signed bytes / 4, so that the two
// sessions' different summation orders stay within the tolerance.
loom::Tensor ReadInput(Bytes& in, loom::DType dtype, const std::vector<int64_t>& dims) {
  loom::Tensor tensor = loom::Tensor::uninitialized(dtype, loom::Shape(dims));
  if (dtype == loom::DType::kFloat32) {
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      tensor.data<float>()[i] = in.NextSigned() / 4.0f;
    }
    return tensor;
  }
  auto* bytes = static_cast<uint8_t*>(tensor.raw_data());
  in.Fill(bytes, tensor.nbytes());
  if (dtype == loom::DType::kBool) {
    for (size_t b = 0; b < tensor.nbytes(); ++b) bytes[b] &= 1;
  }
  return tensor;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("LOOM_MAX_MEMORY", "16M", 1);  // as eager_ops_fuzz.cc
  setenv("LOOM_NUM_INTRAOP_THREADS", "1", 1);
  setenv("LOOM_NUM_INTEROP_THREADS", "1", 1);
  return 0;
}

// Random generators draw new values in each session unless seeded: a graph
// holding an unseeded one skips the optimized-versus-plain comparison.
bool RandomWithoutSeed(const std::string& op, const loom::Attributes& attributes) {
  static const char* const kRandom[] = {"Bernoulli",        "Multinomial",   "RandomNormal",
                                        "RandomNormalLike", "RandomUniform", "RandomUniformLike"};
  return std::find(std::begin(kRandom), std::end(kRandom), op) != std::end(kRandom) &&
         !attributes.has("seed");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> ops = loom::ops::supported_ops();
  static const char* const kSymbols[] = {"N", "T", "C"};
  Bytes in(data, size);
  loom::GraphBuilder builder("fuzz");
  std::vector<std::string> values;
  struct Input {
    std::string name;
    loom::DType dtype;
    loom::SymbolicShape shape;
  };
  std::vector<Input> inputs(1 + in.Next() % 3);
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input& input = inputs[i];
    input.name = "x" + std::to_string(i);
    input.dtype = static_cast<loom::DType>(in.Next() % loom::kNumDTypes);
    const int rank = in.Next() % 5;
    for (int axis = 0; axis < rank; ++axis) {
      const uint8_t byte = in.Next();
      input.shape.push_back(byte % 4 == 0 ? loom::Dim(kSymbols[byte / 4 % 3])
                                          : loom::Dim(int64_t{byte % 9}));
    }
    values.push_back(builder.input(input.name, input.dtype, input.shape));
  }
  std::map<std::string, int64_t> symbol_sizes;
  for (const char* symbol : kSymbols) symbol_sizes[symbol] = in.Next() % 5;

  bool unseeded_random = false;
  try {
    const int nodes = in.Next() % 9;
    for (int n = 0; n < nodes; ++n) {
      const std::string& op = ops[(in.Next() | (in.Next() << 8)) % ops.size()];
      std::vector<std::string> operands(in.Next() % 4);
      for (std::string& operand : operands) {
        const uint8_t byte = in.Next();
        if (byte % 8 == 0) {
          operand = "";
        } else if (byte % 8 == 1) {
          operand = builder.constant(loom_fuzz::ReadTensor(in));
        } else {
          operand = values[byte % values.size()];
        }
      }
      loom::Attributes attributes = loom_fuzz::ReadAttributes(in);
      unseeded_random = unseeded_random || RandomWithoutSeed(op, attributes);
      const int outputs = 1 + in.Next() % 3;
      if (outputs == 1) {
        values.push_back(builder.op(op, operands, std::move(attributes)));
      } else {
        for (std::string& value : builder.op_multi(op, operands, outputs, std::move(attributes))) {
          values.push_back(std::move(value));
        }
      }
    }
    const int outputs = 1 + in.Next() % 3;
    for (int o = 0; o < outputs; ++o) builder.output(values[in.Next() % values.size()]);
    const loom::Graph graph = builder.build();

    // Written as ONNX, a built graph loads back.
    const std::string onnx = loom::save_onnx_model_to_bytes(graph);
    try {
      loom::load_onnx_model_from_bytes(onnx, "", "roundtrip.onnx");
    } catch (const loom::Error& error) {
      Fail(std::string("a built graph written as ONNX does not load back: ") + error.what() + "\n" +
           graph.to_string());
    }

    loom::SessionOptions options;
    options.sequential = true;
    const int level = in.Next() % 3;
    options.optimization_level = level;
    loom::Session optimized(graph, options);
    try {
      loom::verify_graph(optimized.graph());
    } catch (const loom::Error& error) {
      Fail(std::string("the optimized graph does not verify: ") + error.what());
    }
    options.optimization_level = 0;
    loom::Session plain(graph, options);

    std::map<std::string, loom::Tensor> feeds;
    for (const Input& input : inputs) {
      std::vector<int64_t> dims;
      for (const loom::Dim& dim : input.shape) {
        dims.push_back(dim.is_known() ? dim.size() : symbol_sizes[dim.symbol()]);
      }
      feeds.emplace(input.name, ReadInput(in, input.dtype, dims));
    }
    std::vector<loom::Tensor> expected;
    try {
      expected = plain.run(feeds);
    } catch (const loom::Error&) {
      return 0;  // the optimized graph may have dropped or folded the failing node
    }
    std::vector<loom::Tensor> got;
    try {
      got = optimized.run(feeds);
    } catch (const loom::Error&) {
      return 0;
    }
    if (unseeded_random) return 0;
    if (got.size() != expected.size()) Fail("the sessions return different numbers of outputs");
    for (size_t o = 0; o < got.size(); ++o) {
      if (!Agree(got[o], expected[o])) {
        Fail("output " + std::to_string(o) + " differs between optimization levels " +
             std::to_string(level) + " and 0:\n" + graph.to_string());
      }
    }
  } catch (const loom::Error&) {
  }
  return 0;
}
