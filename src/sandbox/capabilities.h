// What this host can confine a child with, probed once per process: bubblewrap (mount, network,
// pid, ipc and uts namespaces; a user namespace only where we are not root), Landlock (a file
// view without namespaces, Linux >= 5.13, and a TCP deny from ABI 4), seccomp-bpf (through the
// ptxbench-sandbox-exec helper, built with libseccomp). Each is used where it works and recorded
// where it does not; PTXBENCH_SANDBOX_DISABLE=bwrap,landlock,seccomp,exec_mappings,file_opens (or
// PTXBENCH_SANDBOX=off) switches mechanisms off, and the record says so.
#pragma once
#include <filesystem>
#include <set>
#include <string>

#include "core/json.h"

namespace ptxbench::sandbox {

struct Capabilities {
  std::string bwrap;                  // path of a working bubblewrap; empty when unusable
  std::string bwrap_unavailable;      // why not
  bool bwrap_proc = false;            // bwrap can mount a fresh /proc (some containers forbid it)
  bool bwrap_user_namespace = false;  // we are not root: bwrap needs --unshare-user
  std::string helper;                 // ptxbench-sandbox-exec; empty when not found
  std::string helper_unavailable;
  int landlock_abi = 0;              // 0: unavailable (or disabled)
  std::string landlock_unavailable;  // why Landlock is left off where the kernel has it (else empty)
  bool seccomp = false;              // the helper can install seccomp filters
  std::set<std::string> disabled;    // from PTXBENCH_SANDBOX_DISABLE / PTXBENCH_SANDBOX=off

  bool off(const std::string& mechanism) const { return disabled.count(mechanism) || disabled.count("all"); }
  json to_json() const;
};

// Probes bubblewrap and the helper (which reports Landlock's ABI and seccomp support).
// `disable`: comma-separated mechanisms to leave off ("all" for everything).
Capabilities probe_capabilities(const std::string& disable, const std::filesystem::path& helper);

// This process's capabilities, probed on first use from the environment
// (PTXBENCH_SANDBOX, PTXBENCH_SANDBOX_DISABLE, PTXBENCH_SANDBOX_EXEC) and the helper beside the
// executable. Thread-safe.
const Capabilities& host_capabilities();

// ptxbench-sandbox-exec: $PTXBENCH_SANDBOX_EXEC, else beside /proc/self/exe (or its ../bin).
std::filesystem::path find_helper();

}  // namespace ptxbench::sandbox
