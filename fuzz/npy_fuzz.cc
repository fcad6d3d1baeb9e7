// Fuzz target: .npy bytes (loom::io::ParseNpy). Malformed input must be a
// loom::Error; anything parsed must serialize back to bytes that parse to
// the same tensor, bit for bit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "io/npy.h"
#include "loom/errors.h"
#include "loom/tensor.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A shape that asks for more than this is refused, not allocated.
  setenv("LOOM_MAX_MEMORY", "256M", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  loom::Tensor tensor;
  try {
    tensor = loom::io::ParseNpy(bytes, "fuzz.npy");
  } catch (const loom::Error&) {
    return 0;
  }
  const std::string again = loom::io::SerializeNpy(tensor);
  const loom::Tensor round_trip = loom::io::ParseNpy(again, "round trip");
  if (round_trip.dtype() != tensor.dtype() || round_trip.shape() != tensor.shape() ||
      round_trip.nbytes() != tensor.nbytes() ||
      (tensor.nbytes() > 0 &&
       std::memcmp(round_trip.raw_data(), tensor.raw_data(), tensor.nbytes()) != 0)) {
    std::abort();  // a tensor that does not survive its own format
  }
  return 0;
}
