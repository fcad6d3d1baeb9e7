// Instruction-set levels the kernels are written for, and picking one at run
// time. Kernels receive the Isa as an argument (no globals), so tests can
// force each level in turn and a user can cap it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace loom::kernels {

enum class Isa {
  kPortable,  // plain C++, no ISA beyond the x86-64 baseline
  kAvx2Fma,   // AVX2 + FMA3 (Haswell, Zen 1 and later)
  kAvx512f,   // AVX-512 Foundation (Skylake-SP, Zen 4 and later)
};

// "portable", "avx2_fma", "avx512f".
std::string_view IsaName(Isa isa);
std::optional<Isa> IsaFromName(std::string_view name);

// Whether this CPU (and the OS, for its register state) runs `isa`.
bool IsaSupported(Isa isa);

// The best level that is supported and not above `cap`.
Isa SelectIsa(Isa cap = Isa::kAvx512f);

// The environment variable that caps the ISA for the whole process:
// LOOM_MAX_ISA=portable | avx2_fma | avx512f (e.g. to compare paths, or to
// avoid AVX-512 frequency drops on some Intel parts).
inline constexpr std::string_view kMaxIsaVariable = "LOOM_MAX_ISA";

// SelectIsa under the cap that `max_isa_value` (LOOM_MAX_ISA's value, or
// nullopt when unset) names. Throws loom::InvalidArgumentError naming the
// variable, the value and the accepted names when it names no ISA.
Isa SelectIsaFromSetting(const std::optional<std::string>& max_isa_value);

}  // namespace loom::kernels
