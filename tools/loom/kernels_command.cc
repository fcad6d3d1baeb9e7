// `loom kernels [--json]`: the kernel registry as a table — every operator,
// the dtypes it takes, the ISA variants it has — and the ISA this process
// would run (the CPU's best, capped by LOOM_MAX_ISA). Starts no threads.
// --json gives the lists as JSON arrays of names.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli_flags.h"
#include "commands.h"
#include "kernels/isa.h"
#include "kernels/registry.h"
#include "loom/errors.h"

namespace loom::cli {
namespace {

using kernels::Isa;

constexpr Isa kAllIsas[] = {Isa::kPortable, Isa::kAvx2Fma, Isa::kAvx512f};

std::vector<std::string> IsaNames(kernels::IsaMask mask) {
  std::vector<std::string> names;
  for (Isa isa : kAllIsas) {
    if ((mask & kernels::IsaBit(isa)) != 0) names.emplace_back(kernels::IsaName(isa));
  }
  return names;
}

std::vector<std::string> DTypeNames(kernels::DTypeMask mask) {
  std::vector<std::string> names;
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = static_cast<DType>(d);
    if ((mask & kernels::DTypeBit(dtype)) != 0) names.emplace_back(dtype_name(dtype));
  }
  return names;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Rows of cells as lines, each column but the last padded to its widest
// cell plus two spaces, so no two columns run together.
std::string AlignedTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      out += row[c];
      if (c + 1 < row.size()) out += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    out += "\n";
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
    nlohmann::ordered_json out;
    out["active_isa"] = kernels::IsaName(active);
    out["cpu_isas"] = IsaNames(supported);
    out["ops"] = nlohmann::ordered_json::array();
    for (const auto& r : kernels::KernelRegistry()) {
      out["ops"].push_back(
          {{"op", r.op}, {"dtypes", DTypeNames(r.dtypes)}, {"isas", IsaNames(r.isas)}});
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("active ISA: %s (CPU supports: %s; cap with %s)\n",
              std::string(kernels::IsaName(active)).c_str(), Join(IsaNames(supported)).c_str(),
              std::string(kernels::kMaxIsaVariable).c_str());
  std::vector<std::vector<std::string>> rows = {{"op", "isa variants", "dtypes"}};
  for (const auto& r : kernels::KernelRegistry()) {
    rows.push_back({std::string(r.op), Join(IsaNames(r.isas)), Join(DTypeNames(r.dtypes))});
  }
  std::fputs(AlignedTable(rows).c_str(), stdout);
  std::printf("%zu operators\n", kernels::KernelRegistry().size());
  return 0;
}

}  // namespace loom::cli
