// Issue 12: the worker's seccomp filters around the candidate (src/sandbox/seccomp_filters,
// runner/sandbox_guard). Each case runs in a forked child (a filter cannot be taken off): what the
// CUDA driver needs stays allowed (threads, plain mappings, reading files, signals to itself);
// what a candidate may not do traps, and the worker's SIGSYS handler reports it as a signed
// `forbidden` line, naming the call.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <thread>

#include "judge/result_lines.h"
#include "runner/result_channel.h"
#include "runner/sandbox_guard.h"
#include "sandbox/seccomp_filters.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

const std::string kKey(64, '7');

struct ChildOutcome {
  int status = 0;
  ChannelReport report;
};

// Forks; the child installs the filters (and the SIGSYS reporter on a signed channel), runs
// `body` and exits 0 when it returns.
ChildOutcome in_filtered_child(const std::function<void()>& body, bool after_load = true, bool deny_file_opens = true) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    ResultChannel channel(fds[1]);
    channel.set_key(kKey);
    install_sigsys_reporter(channel);
    const json sandbox = {
        {"candidate_filters", true}, {"deny_exec_mappings", true}, {"deny_file_opens", deny_file_opens}};
    json before = confine_before_candidate_load(sandbox), after = json::object();
    if (after_load) after = confine_after_candidate_load(sandbox);
    if (before.value("seccomp", "") != "installed" || (after_load && after.value("seccomp", "") != "installed"))
      _exit(99);
    body();
    _exit(0);
  }
  close(fds[1]);
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  ChildOutcome o;
  waitpid(pid, &o.status, 0);
  o.report = read_result_lines(bytes, kKey, {}, false);
  return o;
}

void expect_forbidden(const ChildOutcome& o, const std::string& call) {
  ASSERT_TRUE(WIFEXITED(o.status)) << "status " << o.status;
  ASSERT_NE(WEXITSTATUS(o.status), 99) << "the filters could not be installed";
  EXPECT_EQ(WEXITSTATUS(o.status), 7);
  EXPECT_FALSE(o.report.tampered) << *o.report.tampered;
  ASSERT_EQ(o.report.events.size(), 1u);
  const json& e = o.report.events[0];
  EXPECT_EQ(e["type"], "fatal");
  EXPECT_EQ(e["verdict"], "forbidden");
  EXPECT_EQ(e["syscall"], call) << e.dump();
}

void expect_allowed(const ChildOutcome& o) {
  ASSERT_TRUE(WIFEXITED(o.status)) << "status " << o.status;
  EXPECT_EQ(WEXITSTATUS(o.status), 0) << (o.report.events.empty() ? "" : o.report.events[0].dump());
}

class CandidateFilters : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!sandbox::seccomp_available())
      GTEST_SKIP() << "seccomp is not available here (or this build has no libseccomp)";
  }
};

}  // namespace

TEST_F(CandidateFilters, WhatTheDriverNeedsStaysAllowed) {
  test::TempDir tmp;
  const std::string existing = (tmp.path() / "f").string();
  close(open(existing.c_str(), O_CREAT | O_WRONLY, 0600));
  expect_allowed(in_filtered_child([&] {
    std::thread t([] {});  // clone with CLONE_THREAD
    t.join();
    void* p = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) _exit(2);
    if (kill(getpid(), 0) != 0) _exit(4);
    if (write(1, "", 0) != 0) _exit(5);
  }));
  // With file_opens switched off (PTXBENCH_SANDBOX_DISABLE=file_opens), reading a file is allowed.
  expect_allowed(in_filtered_child(
      [&] {
        if (open(existing.c_str(), O_RDWR) < 0) _exit(3);
      },
      true, false));
}

TEST_F(CandidateFilters, OpeningAnyFileAfterTheLoadIsForbidden) {
  expect_forbidden(in_filtered_child([] { open("/etc/passwd", O_RDONLY); }), "openat");
  // Before the load (the driver opens its device nodes, libraries load) opens are allowed.
  expect_allowed(in_filtered_child(
      [] {
        if (open("/etc/passwd", O_RDONLY) < 0) _exit(3);
      },
      false));
}

TEST_F(CandidateFilters, SocketsAreForbidden) {
  expect_forbidden(in_filtered_child([] { socket(AF_INET, SOCK_STREAM, 0); }, false), "socket");
}

TEST_F(CandidateFilters, ProcessesAreForbidden) {
  expect_forbidden(in_filtered_child([] { execl("/bin/true", "true", nullptr); }, false), "execve");
  expect_forbidden(in_filtered_child([] { syscall(SYS_fork); }, false), "fork");
}

TEST_F(CandidateFilters, SignalsToOtherProcessesAreForbidden) {
  expect_forbidden(in_filtered_child([] { kill(getppid(), 0); }, false), "kill");
}

// A death by SIGKILL (or, under bubblewrap, an exit status of 128 + 9) that the harness did not
// cause reads as an infra error, which runs again and never counts against a model: a candidate
// must not be able to end that way itself.
TEST_F(CandidateFilters, PassingForAnOutsideKillIsForbidden) {
  expect_forbidden(in_filtered_child([] { kill(getpid(), SIGKILL); }, false), "kill");
  expect_forbidden(in_filtered_child([] { raise(SIGKILL); }, false), "tgkill");
  expect_forbidden(in_filtered_child([] { _exit(137); }, false), "exit_group");
  expect_forbidden(in_filtered_child([] { _exit(137 + 256); }, false), "exit_group");
  const ChildOutcome plain = in_filtered_child([] { _exit(5); }, false);
  ASSERT_TRUE(WIFEXITED(plain.status));
  EXPECT_EQ(WEXITSTATUS(plain.status), 5);
}

TEST_F(CandidateFilters, ExecutableMappingsAfterTheLoadAreForbidden) {
  expect_forbidden(
      in_filtered_child([] { mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }),
      "mmap");
  expect_forbidden(in_filtered_child([] {
                     void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                     mprotect(p, 4096, PROT_READ | PROT_EXEC);
                   }),
                   "mprotect");
}

TEST_F(CandidateFilters, CreatingFilesAfterTheLoadIsForbidden) {
  test::TempDir tmp;
  const std::string path = (tmp.path() / "new").string();
  expect_forbidden(in_filtered_child([&] { open(path.c_str(), O_CREAT | O_WRONLY, 0600); }), "openat");
  expect_forbidden(in_filtered_child([&] { open(path.c_str(), O_CREAT | O_WRONLY, 0600); }, true, false), "openat");
}

TEST_F(CandidateFilters, TheSigsysHandlerCannotBeReplaced) {
  expect_allowed(in_filtered_child([] {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    if (sigaction(SIGSYS, &sa, nullptr) == 0) _exit(6);
  }));
}
