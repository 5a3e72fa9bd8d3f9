// Landlock: restricts the calling process and its children to the listed paths.
#include "sandbox/landlock.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ptxbench::sandbox {
namespace {

// Rights newer than the build host's kernel headers (the values are ABI, fixed forever).
constexpr uint64_t kFsTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kFsIoctlDev = 1ULL << 15;  // ABI 5
constexpr uint64_t kNetBindTcp = 1ULL << 0;   // ABI 4
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeSignal = 1ULL << 1;  // ABI 6

constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                 LANDLOCK_ACCESS_FS_READ_FILE | kFsTruncate | kFsIoctlDev;

// struct landlock_ruleset_attr as of ABI 6 (the kernel accepts a shorter size for older ABIs).
struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

uint64_t fs_rights(int abi) {
  uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) all |= kFsTruncate;
  if (abi >= 5) all |= kFsIoctlDev;
  return all;
}

std::string add_rule(int ruleset, const std::filesystem::path& path, uint64_t access, uint64_t handled) {
  const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? "" : "open " + path.string() + ": " + std::strerror(errno);
  struct stat st {};
  fstat(fd, &st);
  access &= handled;
  if (!S_ISDIR(st.st_mode)) access &= kFileRights;
  landlock_path_beneath_attr attr{};
  attr.allowed_access = access;
  attr.parent_fd = fd;
  const long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
  const int err = errno;
  close(fd);
  return r == 0 ? "" : "landlock_add_rule " + path.string() + ": " + std::strerror(err);
}

}  // namespace

int landlock_abi() {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

std::string apply_landlock(const LandlockRules& rules) {
  const int abi = landlock_abi();
  if (abi <= 0) return "Landlock is not available in this kernel";
  const uint64_t handled = fs_rights(abi);
  RulesetAttr attr{handled, 0, 0};
  size_t size = sizeof(uint64_t);
  if (abi >= 4) {
    if (rules.deny_tcp) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    if (rules.scope_signals) attr.scoped = kScopeSignal;
    size = sizeof(RulesetAttr);
  }
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, size, 0));
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  const uint64_t read = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  const uint64_t device = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                          kFsTruncate | kFsIoctlDev;
  std::string error;
  for (const auto& p : rules.read_only)
    if (error.empty()) error = add_rule(ruleset, p, read, handled);
  for (const auto& p : rules.read_write)
    if (error.empty()) error = add_rule(ruleset, p, handled, handled);
  for (const auto& p : rules.devices)
    if (error.empty()) error = add_rule(ruleset, p, device, handled);
  if (error.empty() && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    error = std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
  if (error.empty() && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    error = std::string("landlock_restrict_self: ") + std::strerror(errno);
  close(ruleset);
  return error;
}

}  // namespace ptxbench::sandbox
