#include "kernels/isa.h"

#include "loom/errors.h"

namespace loom::kernels {

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return "portable";
    case Isa::kAvx2Fma:
      return "avx2_fma";
    case Isa::kAvx512f:
      return "avx512f";
  }
  return "unknown";
}

std::optional<Isa> IsaFromName(std::string_view name) {
  for (Isa isa : {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f}) {
    if (IsaName(isa) == name) return isa;
  }
  return std::nullopt;
}

bool IsaSupported(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return true;
#if defined(__x86_64__)
    // libgcc's checks include the OS side (XCR0 enables the AVX/AVX-512 state).
    case Isa::kAvx2Fma:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvx512f:
      return __builtin_cpu_supports("avx512f");
#else
    case Isa::kAvx2Fma:
    case Isa::kAvx512f:
      return false;
#endif
  }
  return false;
}

Isa SelectIsa(Isa cap) {
  for (Isa isa : {Isa::kAvx512f, Isa::kAvx2Fma}) {
    if (static_cast<int>(isa) <= static_cast<int>(cap) && IsaSupported(isa)) return isa;
  }
  return Isa::kPortable;
}

Isa SelectIsaFromSetting(const std::optional<std::string>& max_isa_value) {
  if (!max_isa_value) return SelectIsa();
  const std::optional<Isa> cap = IsaFromName(*max_isa_value);
  if (!cap) {
    throw InvalidArgumentError(std::string(kMaxIsaVariable) + "='" + *max_isa_value +
                               "' is not an ISA level (expected portable, avx2_fma or avx512f)");
  }
  return SelectIsa(*cap);
}

}  // namespace loom::kernels
