// The table of target architectures (compute capability, knowledge pack, title): one row per arch.
#include "core/arch.h"

#include <array>

#include "core/error.h"

namespace ptxbench {
namespace {
constexpr std::array<ArchInfo, 2> kArchs{{
    {"sm_90a", "9.0", "hopper", "NVIDIA Hopper (H100/H200, sm_90a)", ""},
    {"sm_100a", "10.0", "blackwell", "NVIDIA Blackwell (B200, sm_100a)",
     "`wgmma` is Hopper-only: it does not exist on sm_100a. Use the tcgen05 pathway (tensor memory, "
     "`tcgen05.mma`, `tcgen05.ld`/`tcgen05.st`)."},
}};
}  // namespace

const ArchInfo& arch_info(const std::string& arch) {
  for (const auto& a : kArchs)
    if (a.arch == arch) return a;
  std::string known;
  for (const auto& a : kArchs) known += (known.empty() ? "" : ", ") + std::string(a.arch);
  throw InputError("unknown arch '" + arch + "' (known: " + known + ")");
}

}  // namespace ptxbench
