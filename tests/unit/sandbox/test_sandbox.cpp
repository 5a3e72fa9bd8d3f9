// Issue 12: what a sandboxed child (nvcc, the worker) can see and do: a scrubbed environment (no
// key), no file outside its view, no network, its memory and file-size limits. Run through the
// real helper (and bubblewrap where this host has it), as the parent starts its children.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "core/subprocess.h"
#include "sandbox/capabilities.h"
#include "sandbox/env_allowlist.h"
#include "sandbox/landlock.h"
#include "sandbox/policy.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace ptxbench::sandbox;

namespace {

const Capabilities& caps() {
  static const Capabilities c =
      probe_capabilities("", std::filesystem::path(PTXBENCH_BIN_DIR) / "ptxbench-sandbox-exec");
  return c;
}

// A TCP listener on the host's loopback for the duration of a test.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd, 4);
    socklen_t n = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    port = ntohs(a.sin_port);
  }
  ~Listener() { close(fd); }
};

ProcessResult run_sandboxed(const Policy& p, const std::vector<std::string>& command, const Capabilities& c = caps()) {
  auto s = sandboxed(p, command, c);
  ProcessOptions o;
  o.environment = s.environment;
  o.rlimits = s.rlimits;
  o.no_new_privs = true;
  o.timeout = std::chrono::seconds(60);
  return run_process(s.argv, o);
}

// This host's mechanisms less bubblewrap: Landlock (where the kernel has it) as the file view.
Capabilities without_bwrap() {
  Capabilities c = caps();
  c.bwrap.clear();
  c.bwrap_unavailable = "off for this test";
  return c;
}

Policy basic(const std::filesystem::path& scratch) {
  Policy p;
  p.profile = "compiler";
  p.read_only = system_read_only();
  p.scratch = scratch;
  p.devices = {"/dev/null"};
  return p;
}

}  // namespace

TEST(EnvAllowlist, KeysNeverReachTheChild) {
  const auto env = scrubbed_environment({"OPENAI_API_KEY=sk-1", "CUDA_VISIBLE_DEVICES=0", "LD_LIBRARY_PATH=/x",
                                         "HOME=/root", "AWS_SECRET_ACCESS_KEY=2", "PATH=/bin", "LC_ALL=C"},
                                        {"HOME=/scratch"});
  EXPECT_EQ(env,
            (std::vector<std::string>{"CUDA_VISIBLE_DEVICES=0", "HOME=/scratch", "LC_ALL=C", "LD_LIBRARY_PATH=/x"}));
  EXPECT_TRUE(looks_like_secret("GITHUB_TOKEN"));
  EXPECT_TRUE(looks_like_secret("anthropic_api_key"));
  EXPECT_FALSE(looks_like_secret("CUDA_VISIBLE_DEVICES"));
}

TEST(Sandbox, TheHelperIsFoundAndReportsWhatItCanDo) {
  EXPECT_FALSE(caps().helper.empty()) << caps().helper_unavailable;
  std::cout << "sandbox on this host: " << caps().to_json().dump() << "\n";
}

TEST(Sandbox, TheChildSeesNoKeyNoFileOutsideItsViewAndNoNetwork) {
  if (caps().helper.empty()) GTEST_SKIP() << caps().helper_unavailable;
  test::TempDir scratch, outside;
  { std::ofstream(outside.path() / "secret.txt") << "do not read"; }
  setenv("PTXBENCH_TEST_API_KEY", "sk-secret", 1);
  Listener l;
  const std::string script =
      "env; cat " + (outside.path() / "secret.txt").string() +
      " && echo READ-OUTSIDE; python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " +
      std::to_string(l.port) + "), timeout=2); print(\"CONNECTED\")'";
  const auto r = run_sandboxed(basic(scratch.path()), {"/bin/sh", "-c", script});
  unsetenv("PTXBENCH_TEST_API_KEY");
  EXPECT_EQ(r.out.find("sk-secret"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("READ-OUTSIDE"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("CONNECTED"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("HOME=" + scratch.path().string()), std::string::npos) << r.out << r.err;
}

TEST(Sandbox, EachMechanismAloneKeepsTheFileViewAndTheNetworkClosed) {
  if (caps().helper.empty()) GTEST_SKIP() << caps().helper_unavailable;
  // Without bubblewrap (a root container without namespaces): Landlock and seccomp alone.
  const Capabilities no_bwrap = without_bwrap();
  if (no_bwrap.landlock_abi == 0) GTEST_SKIP() << "no Landlock here";
  test::TempDir scratch, outside;
  { std::ofstream(outside.path() / "secret.txt") << "do not read"; }
  Listener l;
  const auto r =
      run_sandboxed(basic(scratch.path()),
                    {"/bin/sh", "-c",
                     "cat " + (outside.path() / "secret.txt").string() +
                         " && echo READ-OUTSIDE; python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " +
                         std::to_string(l.port) + "), timeout=2); print(\"CONNECTED\")'"},
                    no_bwrap);
  EXPECT_EQ(r.out.find("READ-OUTSIDE"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("CONNECTED"), std::string::npos) << r.out << r.err;
}

TEST(Sandbox, MemoryAndFileSizeLimitsHold) {
  if (caps().helper.empty()) GTEST_SKIP() << caps().helper_unavailable;
  test::TempDir scratch;
  Policy p = basic(scratch.path());
  p.limits.address_space = 1ULL << 30;
  p.limits.file_size = 1 << 20;
  const auto mem = run_sandboxed(p, {"python3", "-c", "x = bytearray(2 << 30); print('ALLOCATED')"});
  EXPECT_EQ(mem.out.find("ALLOCATED"), std::string::npos) << mem.out << mem.err;
  EXPECT_NE(mem.err.find("MemoryError"), std::string::npos) << mem.err;
  const auto big = run_sandboxed(p, {"/bin/sh", "-c", "yes | head -c 4000000 > big; wc -c < big"});
  EXPECT_NE(big.out.find("1048576"), std::string::npos) << big.out << big.err;
}

TEST(Sandbox, MechanismsAreRecorded) {
  test::TempDir scratch;
  const auto s = sandboxed(basic(scratch.path()), {"true"}, caps());
  for (const char* k : {"bubblewrap", "landlock", "seccomp", "rlimits", "environment", "no_new_privs"})
    EXPECT_TRUE(s.mechanisms.contains(k)) << k << ": " << s.mechanisms.dump();
  Capabilities none;
  none.bwrap_unavailable = "not installed";
  none.helper_unavailable = "not found";
  const auto bare = sandboxed(basic(scratch.path()), {"true"}, none);
  EXPECT_EQ(bare.mechanisms["bubblewrap"]["used"], false);
  EXPECT_EQ(bare.mechanisms["landlock"]["why"], "not found");
  EXPECT_EQ(bare.argv, std::vector<std::string>{"true"});
}

// The CUDA driver writes its own /proc/<pid>/task entries (on the H200 it does not start under
// Landlock otherwise): `own_proc_writable` lets the program the helper becomes write there, and
// nothing else in /proc, not even its children's entries.
TEST(Sandbox, OnlyTheProgramItselfMayWriteItsProcEntries) {
  if (caps().helper.empty()) GTEST_SKIP() << caps().helper_unavailable;
  const Capabilities landlock_only = without_bwrap();
  if (landlock_only.landlock_abi == 0) GTEST_SKIP() << "no Landlock here";
  test::TempDir scratch;
  Policy p = basic(scratch.path());
  p.proc = true;
  const std::string script =
      "echo renamed > /proc/$$/task/$$/comm && echo OWN-WRITTEN; "
      "/bin/sh -c 'echo child > /proc/self/comm && echo CHILD-WRITTEN'; "
      // the same value back: harmless should the test fail
      "v=$(cat /proc/sys/kernel/core_uses_pid); echo $v > /proc/sys/kernel/core_uses_pid 2>/dev/null && echo "
      "SYSCTL-WRITTEN; true";
  p.own_proc_writable = true;
  const auto allowed = run_sandboxed(p, {"/bin/sh", "-c", script}, landlock_only);
  EXPECT_NE(allowed.out.find("OWN-WRITTEN"), std::string::npos) << allowed.out << allowed.err;
  EXPECT_EQ(allowed.out.find("CHILD-WRITTEN"), std::string::npos) << allowed.out << allowed.err;
  EXPECT_EQ(allowed.out.find("SYSCTL-WRITTEN"), std::string::npos) << allowed.out << allowed.err;
  p.own_proc_writable = false;
  const auto denied = run_sandboxed(p, {"/bin/sh", "-c", script}, landlock_only);
  EXPECT_EQ(denied.out.find("OWN-WRITTEN"), std::string::npos) << denied.out << denied.err;
}
