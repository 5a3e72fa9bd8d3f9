// ptxbench-sandbox-exec: the last step before a sandboxed program runs. Started by the parent
// (inside bubblewrap's view where there is one), it restricts itself with Landlock to the listed
// paths and installs a seccomp profile, then executes the program; both are inherited by
// everything the program starts. rlimits, PR_SET_NO_NEW_PRIVS and the environment were set by the
// parent before this ran.
//
//   ptxbench-sandbox-exec --probe
//   ptxbench-sandbox-exec --profile compiler|worker|tool|none [--chdir DIR] [--keep-cap CAP_SYS_ADMIN]
//                         [--landlock [--ro PATH]... [--rw PATH]... [--dev PATH]...] -- PROGRAM ARGS...
// Exit 125 (with a message on stderr) when the sandbox cannot be set up as asked.
#include <linux/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <set>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sandbox/landlock.h"
#include "sandbox/seccomp_filters.h"

extern char** environ;

namespace {

constexpr int kSetupFailed = 125;

int fail(const std::string& what) {
  std::fprintf(stderr, "ptxbench-sandbox-exec: %s\n", what.c_str());
  return kSetupFailed;
}

// As root, the program would get every capability back at exec: take all but `keep` out of the
// bounding set first (a no-op where we hold no CAP_SETPCAP, e.g. not root or inside bubblewrap).
void drop_capabilities(const std::set<int>& keep) {
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap)
    if (!keep.count(cap)) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ptxbench::sandbox;
  std::string profile = "none", chdir_to;
  bool landlock = false;
  LandlockRules rules;
  std::set<int> keep_caps;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--probe") {
      std::printf("{\"landlock_abi\": %d, \"seccomp\": %s}\n", landlock_abi(), seccomp_available() ? "true" : "false");
      return 0;
    }
    if (a == "--") {
      ++i;
      break;
    }
    const char* v = a == "--landlock" ? "" : value();
    if (!v) return fail(a + " needs a value");
    if (a == "--profile") profile = v;
    else if (a == "--chdir") chdir_to = v;
    else if (a == "--landlock") landlock = true;
    else if (a == "--keep-cap") {
      if (std::string(v) != "CAP_SYS_ADMIN") return fail("--keep-cap: only CAP_SYS_ADMIN may be kept");
      keep_caps.insert(CAP_SYS_ADMIN);
    } else if (a == "--ro") rules.read_only.emplace_back(v);
    else if (a == "--rw") rules.read_write.emplace_back(v);
    else if (a == "--dev") rules.devices.emplace_back(v);
    else return fail("unknown argument '" + a + "'");
  }
  if (i >= argc) return fail("no program given after --");
  if (!chdir_to.empty() && chdir(chdir_to.c_str()) != 0) return fail("chdir " + chdir_to + ": " + std::strerror(errno));
  drop_capabilities(keep_caps);
  if (landlock)
    if (std::string e = apply_landlock(rules); !e.empty()) return fail("Landlock: " + e);
  if (std::string e = install_profile(profile); !e.empty()) return fail("seccomp profile " + profile + ": " + e);
  execve(argv[i], argv + i, environ);
  // Where the program is not a path, search PATH (as execvp would, with this environment).
  if (std::strchr(argv[i], '/') == nullptr) execvpe(argv[i], argv + i, environ);
  return fail(std::string("cannot execute ") + argv[i] + ": " + std::strerror(errno));
}
