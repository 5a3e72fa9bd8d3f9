// The seccomp-bpf filters: the sandbox helper's profiles and the worker's filters around the candidate.
#include "sandbox/seccomp_filters.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>

#if PTXBENCH_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace ptxbench::sandbox {
namespace {

constexpr long kMaxSyscall = 1024;
const char* g_trapped[kMaxSyscall] = {};  // filled before a filter is loaded; read in the SIGSYS handler

// Calls no compiler or GPU program makes: file system and namespace administration, kernel
// modules, BPF, io_uring (which would bypass this filter), keyrings, other processes' memory.
constexpr const char* kAdministration[] = {"mount",
                                           "umount2",
                                           "pivot_root",
                                           "chroot",
                                           "unshare",
                                           "setns",
                                           "bpf",
                                           "userfaultfd",
                                           "io_uring_setup",
                                           "io_uring_enter",
                                           "io_uring_register",
                                           "kexec_load",
                                           "kexec_file_load",
                                           "init_module",
                                           "finit_module",
                                           "delete_module",
                                           "keyctl",
                                           "add_key",
                                           "request_key",
                                           "reboot",
                                           "swapon",
                                           "swapoff",
                                           "acct",
                                           "open_by_handle_at",
                                           "name_to_handle_at",
                                           "fsopen",
                                           "fsmount",
                                           "fsconfig",
                                           "fspick",
                                           "move_mount",
                                           "open_tree",
                                           "mount_setattr",
                                           "quotactl",
                                           "ptrace",
                                           "process_vm_readv",
                                           "process_vm_writev"};

}  // namespace

#if PTXBENCH_HAVE_SECCOMP
namespace {

class Filter {
 public:
  explicit Filter(uint32_t default_action) : ctx_(seccomp_init(default_action)) {}
  ~Filter() {
    if (ctx_) seccomp_release(ctx_);
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;

  // Adds a rule for `name` (skipped when this architecture lacks the call).
  template <class... Cmp>
  void rule(uint32_t action, const char* name, Cmp... cmps) {
    if (!ctx_ || !error_.empty()) return;
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) return;
    if (action == SCMP_ACT_TRAP && nr >= 0 && nr < kMaxSyscall) g_trapped[nr] = name;
    const int rc = seccomp_rule_add(ctx_, action, nr, sizeof...(Cmp), cmps...);
    if (rc < 0) error_ = std::string("seccomp_rule_add(") + name + "): " + std::strerror(-rc);
  }
  std::string load(bool all_threads) {
    if (!ctx_) return "seccomp_init failed";
    if (!error_.empty()) return error_;
    if (all_threads) {
      if (int rc = seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_TSYNC, 1); rc < 0)
        return std::string("seccomp TSYNC: ") + std::strerror(-rc);
    }
    if (int rc = seccomp_load(ctx_); rc < 0) return std::string("seccomp_load: ") + std::strerror(-rc);
    return "";
  }

 private:
  scmp_filter_ctx ctx_;
  std::string error_;
};

}  // namespace

bool seccomp_available() { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0; }

std::string install_profile(const std::string& name) {
  if (name == "none") return "";
  if (name != "compiler" && name != "worker" && name != "tool") return "unknown seccomp profile '" + name + "'";
  Filter f(SCMP_ACT_ALLOW);
  const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
  for (const char* call : kAdministration) {
    const bool tool_needs =
        name == "tool" && (std::strcmp(call, "ptrace") == 0 || std::strncmp(call, "process_vm", 10) == 0);
    if (!tool_needs) f.rule(deny, call);
  }
  if (name == "compiler") f.rule(deny, "socket");
  if (name == "worker") f.rule(deny, "socket", SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  return f.load(false);
}

std::string install_before_candidate_load(const CandidateFilterOptions& o) {
  const auto self = static_cast<scmp_datum_t>(getpid());
  Filter f(SCMP_ACT_ALLOW);
  const uint32_t trap = SCMP_ACT_TRAP;
  for (const char* call : kAdministration) f.rule(trap, call);
  for (const char* call : {"execve", "execveat", "fork", "vfork", "setsid", "setpgid", "tkill", "pidfd_send_signal"})
    f.rule(trap, call);
  // Threads (the CUDA driver's among them) are clones with CLONE_THREAD; glibc falls back from
  // clone3, whose flags a filter cannot see, to clone on ENOSYS.
  f.rule(trap, "clone", SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  f.rule(SCMP_ACT_ERRNO(ENOSYS), "clone3");
  f.rule(trap, "kill", SCMP_A0(SCMP_CMP_NE, self));
  f.rule(trap, "tgkill", SCMP_A0(SCMP_CMP_NE, self));
  f.rule(trap, "rt_sigqueueinfo", SCMP_A0(SCMP_CMP_NE, self));
  f.rule(trap, "rt_tgsigqueueinfo", SCMP_A0(SCMP_CMP_NE, self));
  // A worker killed by SIGKILL from outside (an operator, the OOM killer, a dying harness) is an
  // infra error that runs again; a candidate must not pass for one. So no SIGKILL to itself, and
  // no exit status of 128 or more (under bubblewrap's init a death by signal N reads as exit
  // 128 + N; the worker's own codes are all below 128).
  f.rule(trap, "kill", SCMP_A0(SCMP_CMP_EQ, self), SCMP_A1(SCMP_CMP_EQ, SIGKILL));
  f.rule(trap, "tgkill", SCMP_A0(SCMP_CMP_EQ, self), SCMP_A2(SCMP_CMP_EQ, SIGKILL));
  f.rule(trap, "rt_sigqueueinfo", SCMP_A0(SCMP_CMP_EQ, self), SCMP_A1(SCMP_CMP_EQ, SIGKILL));
  f.rule(trap, "rt_tgsigqueueinfo", SCMP_A0(SCMP_CMP_EQ, self), SCMP_A2(SCMP_CMP_EQ, SIGKILL));
  f.rule(trap, "exit_group", SCMP_A0(SCMP_CMP_MASKED_EQ, 0x80, 0x80));
  // The worker's SIGSYS handler reports a trapped call; candidate code may not replace it.
  f.rule(SCMP_ACT_ERRNO(EPERM), "rt_sigaction", SCMP_A0(SCMP_CMP_EQ, SIGSYS), SCMP_A1(SCMP_CMP_NE, 0));
  if (!o.under_tool) {
    f.rule(trap, "socket");
    f.rule(trap, "socketpair");
  }
  return f.load(true);
}

std::string install_after_candidate_load(const CandidateFilterOptions& o) {
  Filter f(SCMP_ACT_ALLOW);
  const uint32_t trap = SCMP_ACT_TRAP;
  if (o.deny_exec_mappings) {
    f.rule(trap, "mmap", SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    f.rule(trap, "mprotect", SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    f.rule(trap, "pkey_mprotect", SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  }
  // The driver opened its device nodes when the context was made (before the load); a file the
  // candidate opens afterwards is outside what a kernel's host code needs.
  if (o.deny_file_opens) {
    f.rule(trap, "open");
    f.rule(trap, "openat");
  } else {
    f.rule(trap, "open", SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
    f.rule(trap, "openat", SCMP_A2(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));
  }
  f.rule(SCMP_ACT_ERRNO(ENOSYS), "openat2");  // its flags are behind a pointer; glibc's open() does not use it
  for (const char* call : {"creat", "mknod", "mknodat", "link", "linkat", "symlink", "symlinkat"}) f.rule(trap, call);
  return f.load(true);
}

#else  // no libseccomp in this build

bool seccomp_available() { return false; }
std::string install_profile(const std::string& name) {
  return name == "none" ? "" : "this build has no libseccomp (install libseccomp-dev and rebuild)";
}
std::string install_before_candidate_load(const CandidateFilterOptions&) { return install_profile("worker"); }
std::string install_after_candidate_load(const CandidateFilterOptions&) { return install_profile("worker"); }

#endif

const char* trapped_syscall_name(long nr) {
  return nr >= 0 && nr < kMaxSyscall && g_trapped[nr] ? g_trapped[nr] : "a system call";
}

}  // namespace ptxbench::sandbox
