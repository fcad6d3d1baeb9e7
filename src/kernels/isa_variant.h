// Choosing an op family's ISA variant: the one way every family does it.
//
// A family with ISA-specific code lists its variants in a table whose
// entries name their level (a member `Isa isa`) and picks one with
// SelectIsaVariant, which is this loop:
//
//   if (!IsaSupported(isa)) throw ...;   // another level's code is SIGILL
//   const Entry* best = nullptr;
//   for (const Entry& e : table)
//     if (e.isa <= isa && accept(e) && (!best || e.isa > best->isa)) best = &e;
//   if (!best) throw ...;
//   return *best;
//
// So a table needs no order, a level without an entry of its own runs the
// best lower one (an AVX-512 CPU runs the AVX2 depthwise rows), an `isa` the
// CPU lacks is an error message rather than an illegal instruction, and a
// test that forces each supported level in turn gets exactly what a CPU of
// that level would run. `accept` narrows the table for a run (GEMM's packing
// width, a quantized kernel's extra CPU feature); of equal levels the first
// accepted entry wins.
//
// IsaVariantLevels gives the levels a table has code for: what the
// registry's `isas` column says of the family's ops (registry_test checks
// the two agree).
#pragma once

#include <cstdint>
#include <ranges>
#include <string>
#include <string_view>

#include "kernels/isa.h"
#include "loom/errors.h"

namespace loom::kernels {

using IsaMask = uint8_t;
constexpr IsaMask IsaBit(Isa isa) { return static_cast<IsaMask>(1u << static_cast<int>(isa)); }

struct AcceptAnyVariant {
  template <typename Entry>
  constexpr bool operator()(const Entry&) const {
    return true;
  }
};

// `family` names the caller in the errors ("gemm: ISA avx512f is not
// supported by this CPU").
// `table`: any range of entries (a std::array, a span, a C array).
template <typename Table, typename Accept = AcceptAnyVariant>
const std::ranges::range_value_t<Table>& SelectIsaVariant(std::string_view family,
                                                          const Table& table, Isa isa,
                                                          Accept accept = {}) {
  using Entry = std::ranges::range_value_t<Table>;
  if (!IsaSupported(isa)) {
    throw InvalidArgumentError(std::string(family) + ": ISA " + std::string(IsaName(isa)) +
                               " is not supported by this CPU");
  }
  const Entry* best = nullptr;
  for (const Entry& entry : table) {
    if (entry.isa <= isa && accept(entry) && (best == nullptr || entry.isa > best->isa)) {
      best = &entry;
    }
  }
  if (best == nullptr) {
    throw InvalidArgumentError(std::string(family) + ": no variant for ISA " +
                               std::string(IsaName(isa)));
  }
  return *best;
}

template <typename Table>
constexpr IsaMask IsaVariantLevels(const Table& table) {
  IsaMask mask = 0;
  for (const auto& entry : table) mask |= IsaBit(entry.isa);
  return mask;
}

}  // namespace loom::kernels
