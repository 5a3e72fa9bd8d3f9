// Landlock (Linux >= 5.13): restricts the calling process, and everything it starts afterwards,
// to the listed paths. Used by ptxbench-sandbox-exec, inside bubblewrap's view where there is one
// and as the file view itself where there is not (e.g. a root container without namespaces).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench::sandbox {

// The kernel's Landlock ABI version; 0 when Landlock is absent or disabled at boot.
int landlock_abi();

struct LandlockRules {
  std::vector<std::filesystem::path> read_only;   // read and execute
  std::vector<std::filesystem::path> read_write;  // everything (create, remove, rename inside)
  std::vector<std::filesystem::path> devices;     // read, write, ioctl
  bool deny_tcp = true;                           // ABI >= 4: no TCP bind or connect at all
  bool scope_signals = true;                      // ABI >= 6: no signals to processes outside
};

// Restricts this process. Returns "" on success, else what failed (nothing was restricted then).
std::string apply_landlock(const LandlockRules& rules);

}  // namespace ptxbench::sandbox
