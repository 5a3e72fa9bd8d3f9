// The sandbox a worker runs in (src/sandbox): read-only the toolchain, the worker's own folder, the
// candidate's build folder and the GPU libraries' folders; read-write only its private job folder
// (HOME and TMPDIR); the GPU device nodes, /proc and /sys; no network (own network namespace, or
// Landlock's TCP deny, and a seccomp profile that allows only AF_UNIX sockets); a memory, file-size
// and CPU-time limit; the scrubbed environment. compute-sanitizer and ncu run inside it with the
// worker. Where profiling is restricted to administrators, root keeps CAP_SYS_ADMIN (CUPTI's
// instruction counting needs it); every other capability is dropped.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/policy.h"

namespace ptxbench {

sandbox::Policy worker_policy(const std::filesystem::path& worker, const std::filesystem::path& private_dir,
                              const std::vector<std::filesystem::path>& readable,
                              const std::vector<std::string>& wrapper, std::chrono::seconds timeout);

// True when /proc/driver/nvidia/params says RmProfilingAdminOnly: 1.
bool profiling_admin_only();

}  // namespace ptxbench
