// Probes once what this host can confine a child with: bubblewrap, Landlock, seccomp.
#include "sandbox/capabilities.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "core/subprocess.h"

namespace ptxbench::sandbox {
namespace fs = std::filesystem;

namespace {

std::set<std::string> parse_disabled(const std::string& spec) {
  std::set<std::string> out;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.insert(item);
  }
  return out;
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) : line;
}

}  // namespace

fs::path find_helper() {
  if (const char* env = std::getenv("PTXBENCH_SANDBOX_EXEC"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const auto& dir : {exe.parent_path(), exe.parent_path().parent_path() / "bin", exe.parent_path() / "bin"})
    if (access((dir / "ptxbench-sandbox-exec").c_str(), X_OK) == 0) return dir / "ptxbench-sandbox-exec";
  return {};
}

namespace {

// PATH first, then the system's, then the copy the build puts beside ptxbench-sandbox-exec
// (src/sandbox/CMakeLists.txt) for GPU hosts without bubblewrap that take no installs.
fs::path find_bwrap() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && access((fs::path(dir) / "bwrap").c_str(), X_OK) == 0) return fs::path(dir) / "bwrap";
  }
  if (access("/usr/bin/bwrap", X_OK) == 0) return "/usr/bin/bwrap";
  if (const fs::path helper = find_helper(); !helper.empty())
    if (access((helper.parent_path() / "bwrap").c_str(), X_OK) == 0) return helper.parent_path() / "bwrap";
  return {};
}

}  // namespace

Capabilities probe_capabilities(const std::string& disable, const fs::path& helper) {
  Capabilities c;
  c.disabled = parse_disabled(disable);
  ProcessOptions quick;
  quick.timeout = std::chrono::seconds(20);

  if (c.off("bwrap")) {
    c.bwrap_unavailable = "disabled (PTXBENCH_SANDBOX_DISABLE)";
  } else if (const fs::path bwrap = find_bwrap(); bwrap.empty()) {
    c.bwrap_unavailable = "bubblewrap (bwrap) is not installed";
  } else {
    c.bwrap_user_namespace = geteuid() != 0;
    std::vector<std::string> argv{bwrap.string(),  "--die-with-parent", "--unshare-net",       "--unshare-ipc",
                                  "--unshare-pid", "--unshare-uts",     "--unshare-cgroup-try"};
    if (c.bwrap_user_namespace) argv.push_back("--unshare-user");
    for (const std::string a : {"--ro-bind", "/", "/", "--dev", "/dev"}) argv.push_back(a);
    auto with_proc = argv;
    for (const std::string a : {"--proc", "/proc", "true"}) with_proc.push_back(a);
    argv.push_back("true");
    try {
      const ProcessResult full = run_process(with_proc, quick);
      if (full.ok()) {
        c.bwrap = bwrap.string(), c.bwrap_proc = true;
      } else if (const ProcessResult plain = run_process(argv, quick); plain.ok()) {
        c.bwrap = bwrap.string();
      } else {
        c.bwrap_unavailable =
            "bwrap cannot create namespaces here (" + plain.describe() + "): " + first_line(plain.err);
      }
    } catch (const std::exception& e) {
      c.bwrap_unavailable = std::string("bwrap could not be started: ") + e.what();
    }
  }

  if (helper.empty()) {
    c.helper_unavailable = "ptxbench-sandbox-exec not found (neither $PTXBENCH_SANDBOX_EXEC nor beside the executable)";
  } else {
    try {
      const ProcessResult r = run_process({helper.string(), "--probe"}, quick);
      const json j = json::parse(r.out, nullptr, false);
      if (!r.ok() || !j.is_object()) {
        c.helper_unavailable = helper.string() + " --probe failed (" + r.describe() + "): " + first_line(r.err);
      } else {
        c.helper = helper.string();
        c.landlock_abi = c.off("landlock") ? 0 : j.value("landlock_abi", 0);
        c.seccomp = !c.off("seccomp") && j.value("seccomp", false);
      }
    } catch (const std::exception& e) {
      c.helper_unavailable = helper.string() + " could not be started: " + e.what();
    }
  }
  return c;
}

json Capabilities::to_json() const {
  json j = {{"bubblewrap", bwrap.empty() ? json(bwrap_unavailable) : json(true)},
            {"landlock_abi", landlock_abi},
            {"seccomp", seccomp},
            {"helper", helper.empty() ? json(helper_unavailable) : json(true)}};
  if (!bwrap.empty()) j["bubblewrap_proc"] = bwrap_proc;
  if (!disabled.empty()) j["disabled"] = disabled;
  return j;
}

const Capabilities& host_capabilities() {
  static const Capabilities caps = [] {
    std::string disable;
    if (const char* d = std::getenv("PTXBENCH_SANDBOX_DISABLE")) disable = d;
    if (const char* s = std::getenv("PTXBENCH_SANDBOX"); s && std::string(s) == "off") disable += ",all";
    return probe_capabilities(disable, find_helper());
  }();
  return caps;
}

}  // namespace ptxbench::sandbox
