// `ptxbench --version`: the harness (version, commit, uncommitted changes), nvcc, and what can
// confine candidates on this host.
#include "cli/commands.h"
#include "core/build_info.h"
#include "judge/toolchain_info.h"
#include "sandbox/capabilities.h"

namespace ptxbench::cli {

std::string version_text() {
  std::string s = "ptxbench " + harness_version() + " (commit " + harness_commit() +
                  (harness_dirty() ? ", uncommitted changes" : "") + ")\n";
  s += "nvcc: " + nvcc_version() + "\n";
  const auto& caps = sandbox::host_capabilities();
  s += "sandbox: bubblewrap " +
       (caps.bwrap.empty() ? "unavailable (" + caps.bwrap_unavailable + ")" : std::string("yes")) + ", landlock " +
       (caps.landlock_abi ? "ABI " + std::to_string(caps.landlock_abi) : std::string("unavailable")) + ", seccomp " +
       (caps.seccomp ? "yes" : "unavailable");
  return s;
}

}  // namespace ptxbench::cli
