// The worker's own seccomp confinement around the candidate and its SIGSYS report of a trapped call.
#include "runner/sandbox_guard.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "sandbox/seccomp_filters.h"

namespace ptxbench {
namespace {

ResultChannel* g_channel = nullptr;
constexpr int kExitForbiddenCall = 7;

void append(char* buf, size_t& n, size_t cap, const char* s) {
  for (; *s && n + 1 < cap; ++s) buf[n++] = *s;
}

void on_sigsys(int, siginfo_t* info, void*) {
  char number[24];
  long nr = info ? info->si_syscall : -1;
  int nd = 0;
  char rev[24];
  unsigned long v = nr < 0 ? 0 : static_cast<unsigned long>(nr);
  do {
    rev[nd++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v && nd < 20);
  for (int i = 0; i < nd; ++i) number[i] = rev[nd - 1 - i];
  number[nd] = 0;
  char line[512];
  size_t n = 0;
  append(line, n, sizeof line,
         "{\"type\":\"fatal\",\"verdict\":\"forbidden\",\"message\":\"the sandbox stopped a forbidden system call: ");
  append(line, n, sizeof line, sandbox::trapped_syscall_name(nr));
  append(line, n, sizeof line, " (number ");
  append(line, n, sizeof line, number);
  append(line, n, sizeof line, "), made by candidate code or a library it called\",\"syscall\":\"");
  append(line, n, sizeof line, sandbox::trapped_syscall_name(nr));
  append(line, n, sizeof line, "\"}");
  if (g_channel) g_channel->emit_from_signal(line, n);
  _exit(kExitForbiddenCall);
}

sandbox::CandidateFilterOptions options_of(const json& j) {
  sandbox::CandidateFilterOptions o;
  o.under_tool = j.value("under_tool", false);
  o.deny_exec_mappings = j.value("deny_exec_mappings", true);
  o.deny_file_opens = j.value("deny_file_opens", true);
  return o;
}

json outcome(const json& job_sandbox, std::string (*install)(const sandbox::CandidateFilterOptions&)) {
  if (!job_sandbox.value("candidate_filters", false)) return {{"seccomp", "not installed: off for this job"}};
  const std::string e = install(options_of(job_sandbox));
  return {{"seccomp", e.empty() ? std::string("installed") : "not installed: " + e}};
}

}  // namespace

void install_sigsys_reporter(ResultChannel& channel) {
  g_channel = &channel;
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSYS, &sa, nullptr);
}

json confine_before_candidate_load(const json& job_sandbox) {
  return outcome(job_sandbox, sandbox::install_before_candidate_load);
}

json confine_after_candidate_load(const json& job_sandbox) {
  if (!job_sandbox.value("after_load", true))
    return {{"seccomp", "not installed: off under a tool (compute-sanitizer, ncu)"}};
  json j = outcome(job_sandbox, sandbox::install_after_candidate_load);
  j["exec_mappings"] = job_sandbox.value("deny_exec_mappings", true) ? "denied" : "allowed";
  j["file_opens"] = job_sandbox.value("deny_file_opens", true) ? "denied" : "only file creation denied";
  return j;
}

}  // namespace ptxbench
