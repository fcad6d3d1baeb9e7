// `loom kernels [--json]`: the kernel registry as a table — every operator,
// the dtypes it takes, the ISA variants it has — and the ISA this process
// would run (the CPU's best, capped by LOOM_MAX_ISA). Starts no threads.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli_flags.h"
#include "commands.h"
#include "kernels/isa.h"
#include "kernels/registry.h"
#include "loom/errors.h"

namespace loom::cli {
namespace {

using kernels::Isa;

constexpr Isa kAllIsas[] = {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f};

std::string IsaList(kernels::IsaMask mask) {
  std::string out;
  for (Isa isa : kAllIsas) {
    if ((mask & kernels::IsaBit(isa)) == 0) continue;
    if (!out.empty()) out += ", ";
    out += kernels::IsaName(isa);
  }
  return out;
}

}  // namespace

int KernelsCommand(const std::vector<std::string>& args) {
  bool json = false;
  FlagReader flags("kernels", args);
  while (flags.Next()) {
    if (flags.Is("--json")) {
      json = true;
    } else if (flags.IsPositional()) {
      throw UsageError("kernels: unexpected argument '" + flags.current() + "'");
    } else {
      flags.Unknown();
    }
  }
  const char* cap = std::getenv(std::string(kernels::kMaxIsaVariable).c_str());
  const Isa active =
      kernels::SelectIsaFromSetting(cap ? std::optional<std::string>(cap) : std::nullopt);
  kernels::IsaMask supported = 0;
  for (Isa isa : kAllIsas) {
    if (kernels::IsaSupported(isa)) supported |= kernels::IsaBit(isa);
  }

  if (json) {
    nlohmann::json out;
    out["active_isa"] = kernels::IsaName(active);
    out["cpu_isas"] = IsaList(supported);
    out["ops"] = nlohmann::json::array();
    for (const auto& r : kernels::KernelRegistry()) {
      out["ops"].push_back({{"op", r.op},
                            {"dtypes", kernels::DTypeMaskToString(r.dtypes)},
                            {"isas", IsaList(r.isas)}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("active ISA: %s (CPU supports: %s; cap with %s)\n",
              std::string(kernels::IsaName(active)).c_str(), IsaList(supported).c_str(),
              std::string(kernels::kMaxIsaVariable).c_str());
  std::printf("%-24s %-26s %s\n", "op", "isa variants", "dtypes");
  for (const auto& r : kernels::KernelRegistry()) {
    std::printf("%-24s %-26s %s\n", std::string(r.op).c_str(), IsaList(r.isas).c_str(),
                kernels::DTypeMaskToString(r.dtypes).c_str());
  }
  std::printf("%zu operators\n", kernels::KernelRegistry().size());
  return 0;
}

}  // namespace loom::cli
