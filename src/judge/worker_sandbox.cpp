// The sandbox policy a worker runs under: what it may read, write and open, and no network.
#include "judge/worker_sandbox.h"

#include <glob.h>

#include <algorithm>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ptxbench {
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> glob_paths(const char* pattern) {
  std::vector<fs::path> out;
  glob_t g{};
  if (glob(pattern, 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

void add_env_dirs(std::vector<fs::path>& out, const char* name) {
  const char* v = std::getenv(name);
  if (!v) return;
  std::stringstream ss(v);
  for (std::string d; std::getline(ss, d, ':');)
    if (!d.empty() && fs::path(d).is_absolute()) out.emplace_back(d);
}

}  // namespace

bool profiling_admin_only() {
  std::ifstream params("/proc/driver/nvidia/params");
  for (std::string line; std::getline(params, line);)
    if (line.starts_with("RmProfilingAdminOnly:")) return line.find('1') != std::string::npos;
  return false;
}

sandbox::Policy worker_policy(const fs::path& worker, const fs::path& private_dir,
                              const std::vector<fs::path>& readable, const std::vector<std::string>& wrapper,
                              std::chrono::seconds timeout) {
  sandbox::Policy p;
  p.profile = wrapper.empty() ? "worker" : "tool";
  p.read_only = sandbox::system_read_only();
  for (const char* extra : {"/etc/nvidia", "/etc/localtime", "/opt", "/run/nvidia-persistenced"})
    p.read_only.emplace_back(extra);
  std::error_code ec;
  p.read_only.push_back(fs::weakly_canonical(fs::absolute(worker, ec), ec).parent_path());
  for (const auto& r : readable) p.read_only.push_back(r);
  if (!wrapper.empty()) p.read_only.push_back(fs::weakly_canonical(wrapper.front(), ec).parent_path().parent_path());
  add_env_dirs(p.read_only, "LD_LIBRARY_PATH");
  if (const char* cudnn = std::getenv("PTXBENCH_CUDNN_LIB")) p.read_only.push_back(fs::path(cudnn).parent_path());
  for (const auto& d : glob_paths("/dev/nvidia*")) p.devices.push_back(d);
  p.devices.emplace_back("/dev/dri");
  p.full_dev = p.proc = p.sys = true;
  // The driver writes its threads' entries under /proc/<pid>/task (seen on the H200: without this
  // it does not start under Landlock). Under a tool the candidate's process is the tool's child,
  // whose /proc entry a rule made before it exists cannot name (run_worker leaves Landlock off there).
  p.own_proc_writable = wrapper.empty();
  p.read_write = {private_dir};
  p.scratch = private_dir / "home";
  p.workdir = private_dir;
  const unsigned long long gib = 1ULL << 30;
  p.limits.data = std::max(16 * gib, sandbox::physical_memory_bytes() / 2);
  p.limits.file_size = 4 * gib;
  p.limits.core_bytes = 0;
  p.limits.cpu_seconds = static_cast<unsigned long long>(timeout.count()) * 4 + 60;
  if (profiling_admin_only()) p.keep_capabilities = {"CAP_SYS_ADMIN"};
  return p;
}

}  // namespace ptxbench
