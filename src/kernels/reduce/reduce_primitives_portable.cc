// Portable reduction primitives (baseline x86-64 / any CPU) for every dtype,
// and the float32 table lookup by ISA level.
#include <string>

#include "kernels/reduce/reduce_primitives_impl.h"
#include "loom/errors.h"

namespace loom::kernels {

template <typename T>
const ReducePrimitives<T>& PortableReducePrimitives() {
  return kPrimitives<T>;
}

template const ReducePrimitives<float>& PortableReducePrimitives<float>();
template const ReducePrimitives<double>& PortableReducePrimitives<double>();
template const ReducePrimitives<int8_t>& PortableReducePrimitives<int8_t>();
template const ReducePrimitives<uint8_t>& PortableReducePrimitives<uint8_t>();
template const ReducePrimitives<int16_t>& PortableReducePrimitives<int16_t>();
template const ReducePrimitives<uint16_t>& PortableReducePrimitives<uint16_t>();
template const ReducePrimitives<int32_t>& PortableReducePrimitives<int32_t>();
template const ReducePrimitives<int64_t>& PortableReducePrimitives<int64_t>();
template const ReducePrimitives<uint32_t>& PortableReducePrimitives<uint32_t>();
template const ReducePrimitives<uint64_t>& PortableReducePrimitives<uint64_t>();

const ReducePrimitives<float>& F32ReducePrimitivesFor(Isa isa) {
  // Running another ISA's code would be SIGILL, not an error message.
  if (!IsaSupported(isa)) {
    throw InvalidArgumentError("reduce: ISA " + std::string(IsaName(isa)) +
                               " is not supported by this CPU");
  }
  switch (isa) {
    case Isa::kPortable:
      return kPrimitives<float>;
    case Isa::kAvx2Fma:
      return F32ReducePrimitives__avx2_fma();
    case Isa::kAvx512f:
      return F32ReducePrimitives__avx512f();
  }
  return kPrimitives<float>;
}

}  // namespace loom::kernels
