// Fuzz target: eager ops with fuzzer-chosen op, inputs (dtypes, shapes,
// bytes) and attributes, through loom::ops::run_optional: every registered
// kernel's checks and edge cases. Bad combinations must be a loom::Error.
//
// The input is read as: op (2 bytes, an index into supported_ops()),
// input count (0-4), per input [absent flag, dtype, rank (0-4), dims (0-8
// each), the elements' bytes], attribute count (0-4), per attribute [name,
// kind, value]. Reading past the end gives zeros, so every byte string is a
// call.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "loom/errors.h"
#include "loom/ops.h"

using loom_fuzz::Bytes;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Outputs past this are refused, not allocated (Expand, Tile, Range, ...).
  // 16 MiB: a Pad of [2, 2] by 17 million rows (204 MB under a 256M cap)
  // took over 10 s in the -O0 sanitizer build, a "hang" that is only size.
  setenv("LOOM_MAX_MEMORY", "16M", 1);
  setenv("LOOM_NUM_INTRAOP_THREADS", "1", 1);
  setenv("LOOM_NUM_INTEROP_THREADS", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> ops = loom::ops::supported_ops();
  Bytes in(data, size);
  const std::string& op = ops[(in.Next() | (in.Next() << 8)) % ops.size()];

  std::vector<loom::Tensor> tensors;
  std::vector<bool> absent;
  const int inputs = in.Next() % 5;
  for (int i = 0; i < inputs; ++i) {
    absent.push_back(in.Next() % 8 == 0);
    tensors.push_back(loom_fuzz::ReadTensor(in));
  }
  std::vector<const loom::Tensor*> pointers;
  for (size_t i = 0; i < tensors.size(); ++i) {
    pointers.push_back(absent[i] ? nullptr : &tensors[i]);
  }
  const loom::ops::Attributes attributes = loom_fuzz::ReadAttributes(in);
  try {
    loom::ops::run_optional(op, pointers, attributes);
  } catch (const loom::Error&) {
  }
  return 0;
}
