// Portable reduction primitives (baseline x86-64 / any CPU) for every dtype,
// and the float32 table lookup by ISA level.
#include <array>
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

namespace {

struct F32ReduceVariant {
  Isa isa;
  const ReducePrimitives<float>& (*primitives)();
};

constexpr std::array<F32ReduceVariant, 3> kF32Variants = {{
    {Isa::kPortable, PortableReducePrimitives<float>},
    {Isa::kAvx2Fma, F32ReducePrimitives__avx2_fma},
    {Isa::kAvx512f, F32ReducePrimitives__avx512f},
}};

}  // namespace

const ReducePrimitives<float>& F32ReducePrimitivesFor(Isa isa) {
  return SelectIsaVariant("reduce", kF32Variants, isa).primitives();
}

IsaMask F32ReduceIsaLevels() { return IsaVariantLevels(kF32Variants); }

}  // namespace loom::kernels
