// A sandboxed child's policy and the command line enforcing it here: bubblewrap, then ptxbench-sandbox-exec.
#include "sandbox/policy.h"

#include <unistd.h>

#include <algorithm>

#include "sandbox/env_allowlist.h"

namespace ptxbench::sandbox {
namespace fs = std::filesystem;

namespace {

constexpr const char* kTopLevel[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

// Absolute, normalized, existing paths; duplicates and paths inside an earlier one of the same
// kind dropped, parents before children (bwrap binds in order; a later bind covers an earlier one).
std::vector<fs::path> normalized(const std::vector<fs::path>& paths) {
  std::vector<fs::path> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (p.empty() || !fs::exists(p, ec)) continue;
    out.push_back(fs::absolute(p).lexically_normal());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return a.string().size() != b.string().size() ? a.string().size() < b.string().size() : a < b;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void add_helper_paths(std::vector<std::string>& args, const char* flag, const std::vector<fs::path>& paths) {
  for (const auto& p : paths) args.insert(args.end(), {flag, p.string()});
}

}  // namespace

std::vector<fs::path> system_read_only() {
  std::vector<fs::path> out{"/usr", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"};
  for (const char* top : kTopLevel) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(top, ec))) out.emplace_back(top);
  }
  return out;
}

SandboxedCommand sandboxed(const Policy& policy, const std::vector<std::string>& command, const Capabilities& caps) {
  SandboxedCommand out;
  const fs::path scratch = policy.scratch.empty() ? fs::temp_directory_path() : policy.scratch;
  const fs::path workdir = policy.workdir.empty() ? scratch : policy.workdir;
  auto ro_paths = policy.read_only;
  if (!caps.helper.empty())
    ro_paths.push_back(std::filesystem::path(caps.helper).parent_path());  // the helper runs inside the view
  const auto ro = normalized(ro_paths);
  auto rw = normalized(policy.read_write);
  rw.push_back(scratch);
  rw = normalized(rw);
  const auto dev = normalized(policy.devices);
  std::vector<std::string> set = policy.env_set;
  set.push_back("HOME=" + scratch.string());
  set.push_back("TMPDIR=" + scratch.string());
  out.environment = scrubbed_environment(current_environment(), set);
  out.rlimits = policy.limits.to_rlimits();
  json& m = out.mechanisms;
  m["profile"] = policy.profile;
  m["no_new_privs"] = true;
  m["rlimits"] = policy.limits.to_json();
  json names = json::array();
  for (const auto& e : out.environment) names.push_back(e.substr(0, e.find('=')));
  m["environment"] = {{"policy", "allowlist"}, {"names", names}};

  std::vector<std::string> argv;
  if (!caps.bwrap.empty()) {
    argv = {caps.bwrap,      "--die-with-parent", "--unshare-net",       "--unshare-ipc",
            "--unshare-pid", "--unshare-uts",     "--unshare-cgroup-try"};
    json namespaces = {"mount", "network", "pid", "ipc", "uts", "cgroup"};
    if (caps.bwrap_user_namespace) argv.push_back("--unshare-user"), namespaces.push_back("user");
    // As root bwrap would keep every capability: drop them all, keeping only what the policy names.
    if (geteuid() == 0) {
      argv.insert(argv.end(), {"--cap-drop", "ALL"});
      for (const auto& cap : policy.keep_capabilities) argv.insert(argv.end(), {"--cap-add", cap});
    }
    for (const char* top : kTopLevel) {
      std::error_code ec;
      if (fs::is_symlink(fs::symlink_status(top, ec)))
        argv.insert(argv.end(), {"--symlink", fs::read_symlink(top, ec).string(), top});
    }
    argv.insert(argv.end(), {"--tmpfs", "/tmp"});  // first: binds below /tmp go on top of it
    for (const auto& p : ro) argv.insert(argv.end(), {"--ro-bind", p.string(), p.string()});
    if (policy.full_dev) argv.insert(argv.end(), {"--dev", "/dev"});
    else argv.insert(argv.end(), {"--dir", "/dev"});
    for (const auto& p : dev) argv.insert(argv.end(), {"--dev-bind", p.string(), p.string()});
    if (policy.proc) {
      if (caps.bwrap_proc) argv.insert(argv.end(), {"--proc", "/proc"});
      else argv.insert(argv.end(), {"--ro-bind", "/proc", "/proc"});
    }
    if (policy.sys) argv.insert(argv.end(), {"--ro-bind", "/sys", "/sys"});
    for (const auto& p : rw) argv.insert(argv.end(), {"--bind", p.string(), p.string()});
    argv.insert(argv.end(), {"--chdir", workdir.string(), "--"});
    m["bubblewrap"] = {{"used", true},
                       {"namespaces", namespaces},
                       {"proc", policy.proc ? (caps.bwrap_proc ? "own" : "host, read-only") : "none"}};
    m["bubblewrap"]["capabilities"] = policy.keep_capabilities;  // all others dropped
  } else {
    m["bubblewrap"] = {{"used", false}, {"why", caps.bwrap_unavailable}};
  }

  if (!caps.helper.empty()) {
    std::vector<std::string> helper{caps.helper, "--profile", caps.seccomp ? policy.profile : "none", "--chdir",
                                    workdir.string()};
    for (const auto& cap : policy.keep_capabilities) helper.insert(helper.end(), {"--keep-cap", cap});
    if (caps.landlock_abi > 0) {
      helper.push_back("--landlock");
      auto ro_all = ro;
      if (policy.proc) ro_all.emplace_back("/proc");
      if (policy.sys) ro_all.emplace_back("/sys");
      auto rw_all = rw;
      if (!caps.bwrap.empty()) rw_all.emplace_back("/tmp");  // the sandbox's own tmpfs
      if (policy.full_dev) rw_all.emplace_back("/dev/shm");  // bwrap's private one where it runs
      add_helper_paths(helper, "--ro", ro_all);
      add_helper_paths(helper, "--rw", rw_all);
      auto devices = dev;
      if (policy.full_dev) devices.push_back("/dev");
      add_helper_paths(helper, "--dev", devices);
      // /proc/self resolves in the helper, which then becomes the program (same pid).
      if (policy.own_proc_writable && policy.proc) helper.insert(helper.end(), {"--dev", "/proc/self"});
      m["landlock"] = {
          {"used", true}, {"abi", caps.landlock_abi}, {"tcp", caps.landlock_abi >= 4 ? "denied" : "not handled"}};
    } else {
      m["landlock"] = {{"used", false},
                       {"why", !caps.landlock_unavailable.empty() ? caps.landlock_unavailable
                               : caps.off("landlock")             ? "disabled"
                                                                  : "the kernel has no Landlock"}};
    }
    m["seccomp"] = caps.seccomp ? json{{"used", true}, {"profile", policy.profile}}
                                : json{{"used", false}, {"why", caps.off("seccomp") ? "disabled" : "unavailable"}};
    helper.push_back("--");
    argv.insert(argv.end(), helper.begin(), helper.end());
  } else {
    m["landlock"] = {{"used", false}, {"why", caps.helper_unavailable}};
    m["seccomp"] = {{"used", false}, {"why", caps.helper_unavailable}};
  }
  argv.insert(argv.end(), command.begin(), command.end());
  out.argv = std::move(argv);
  return out;
}

}  // namespace ptxbench::sandbox
