// What a sandboxed child may see and do, and the command line that enforces it on this host:
// bubblewrap (a private mount view holding only the listed paths, no network, own pid/ipc/uts
// namespaces) where it works, then ptxbench-sandbox-exec inside it (Landlock on the same paths,
// a seccomp profile), then the command; rlimits, PR_SET_NO_NEW_PRIVS and the scrubbed
// environment are applied by run_process in the forked child. A mechanism this host lacks is
// left out and `mechanisms` says which applied and why the others did not.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "sandbox/capabilities.h"
#include "sandbox/limits.h"

namespace ptxbench::sandbox {

struct Policy {
  std::string profile = "compiler";              // the helper's seccomp profile: compiler, worker, tool
  std::vector<std::filesystem::path> read_only;  // files or folders, at their own paths
  std::vector<std::filesystem::path> read_write;
  std::vector<std::filesystem::path> devices;  // device nodes (read-write, ioctl)
  bool full_dev = false;                       // bwrap's minimal /dev (null, zero, urandom, shm, ...) besides `devices`
  bool proc = false;                           // a /proc (bwrap: of the sandbox's own pid namespace)
  bool sys = false;                            // /sys read-only (the CUDA driver, NVML)
  // Landlock: the program may write its own /proc/<pid> (the CUDA driver writes there, e.g. its
  // threads' names). Only the process that ptxbench-sandbox-exec becomes: not its children.
  bool own_proc_writable = false;
  std::filesystem::path scratch;     // private and writable: HOME and TMPDIR
  std::filesystem::path workdir;     // empty: the scratch folder
  std::vector<std::string> env_set;  // NAME=value beyond the inherited allowlist
  Limits limits;
  std::vector<std::string> keep_capabilities;  // bwrap --cap-add, only when running as root
};

struct SandboxedCommand {
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // the child's whole environment
  std::vector<std::pair<int, unsigned long long>> rlimits;
  json mechanisms = json::object();  // what applies, recorded with every evaluation
};

// The toolchain's own folders every child needs to run a dynamically linked program
// (/usr, and /bin, /lib, ... where they are real folders, not links into /usr).
std::vector<std::filesystem::path> system_read_only();

SandboxedCommand sandboxed(const Policy& policy, const std::vector<std::string>& command, const Capabilities& caps);

}  // namespace ptxbench::sandbox
