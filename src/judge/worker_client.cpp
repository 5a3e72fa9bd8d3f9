// Starts ptxbench-worker for one job in its sandbox and collects only what it reported in verified lines.
#include "judge/worker_client.h"

#include <fcntl.h>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/timestamp.h"
#include "core/worker_protocol.h"
#include "judge/exclusive_handshake.h"
#include "judge/reference_session.h"
#include "judge/shared_pause_link.h"
#include "judge/result_lines.h"
#include "judge/worker_sandbox.h"
#include "sandbox/capabilities.h"

namespace ptxbench {
namespace fs = std::filesystem;

std::optional<json> WorkerRun::stage(const std::string& name) const {
  for (const auto& e : events)
    if (e.value("type", "") == "stage" && e.value("name", "") == name) return e;
  return std::nullopt;
}

std::vector<json> WorkerRun::of_type(const std::string& type) const {
  std::vector<json> out;
  for (const auto& e : events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

std::optional<json> WorkerRun::hello() const {
  auto h = of_type("hello");
  if (h.empty()) return std::nullopt;
  return h.front();
}

std::string WorkerRun::last_progress() const {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->value("type", "") == "progress") {
      std::string s = it->value("stage", "");
      if (it->contains("shape"))
        for (const auto& [k, v] : (*it)["shape"].items()) s += " " + k + "=" + v.dump();
      return s;
    }
  return {};
}

std::string WorkerRun::output_tail(size_t max_bytes) const {
  std::string all = process.out + (process.err.empty() ? "" : "\n[stderr]\n" + process.err);
  if (all.size() <= max_bytes) return all;
  return "[... " + std::to_string(all.size() - max_bytes) + " bytes dropped]\n" + all.substr(all.size() - max_bytes);
}

std::vector<std::string> expected_stages(const json& job) {
  if (job.is_null()) return {};
  const std::string mode = job.value("mode", "");
  if (mode == "single_call" || mode == "self_test") return {mode};
  if (mode != "eval") return {};
  std::vector<std::string> s{"correctness"};
  if (job.value("accounting", true)) s.push_back("integrity");
  if (job.value("stream_discipline", true)) s.push_back("stream_discipline");
  if (job.contains("count")) s.push_back("target_run");
  if (job.contains("timing")) s.push_back("timing");
  return s;
}

namespace {

fs::path make_private_dir(const fs::path& job_dir) {
  fs::create_directories(job_dir);
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  const fs::path dir =
      job_dir / ("run-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + std::to_string(rd()));
  if (mkdir(dir.c_str(), 0700) != 0)
    fail("cannot create the worker's folder " + dir.string() + ": " + std::strerror(errno));
  fs::create_directories(dir / "home");
  return dir;
}

void write_private_file(const fs::path& file, const std::string& text) {
  int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail("cannot create job file " + file.string() + ": " + std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!ok) fail("cannot write job file " + file.string());
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

WorkerRun run_worker_with(const WorkerLaunch& launch, const json& job_in, const sandbox::Capabilities& caps);

// bubblewrap runs the worker under its own init (its pid namespace) and exits 128 + N where the
// worker died of signal N: the worker's own end is restored from it, so that SIGSYS (the seccomp
// trap), SIGKILL from outside and a crash are told apart as they are without bubblewrap. The
// worker's own exit codes are all below 128. A signal to bubblewrap itself (the deadline's
// SIGKILL of the process group) is already a signal here.
void worker_end_under_bwrap(ProcessResult& p) {
  if (!p.exited || p.exit_code <= 128 || p.exit_code >= 128 + 65) return;
  p.term_signal = p.exit_code - 128;
  p.exited = false;
  p.exit_code = -1;
  p.result_truncated = !p.result.empty() && p.result.back() != '\n';
}

// Denying every open after the load (not only those that create a file) is opt-in
// (PTXBENCH_SANDBOX_DENY_FILE_OPENS=1): on the H200 the CUDA driver itself opens a file at the first
// cudaMallocAsync after the load, so a correct split-K control was judged forbidden under it, and
// cuDNN and cuBLASLt load their kernel libraries lazily.
bool deny_every_file_open() {
  const char* v = std::getenv("PTXBENCH_SANDBOX_DENY_FILE_OPENS");
  return v && std::string(v) == "1";
}

// The sandbox the GPU worker runs under. The CUDA driver does not start under Landlock when it
// cannot write its own /proc/<pid> (seen on the lent H200: cudaGetDeviceCount fails with "OS call
// failed or operation not supported"); the worker policy allows that, but a host may need more.
// Asked once per process: if the worker finds no GPU under the full policy but does with Landlock
// left off, Landlock is left off for the GPU worker, and every record says so and why; the other
// layers (bubblewrap's view, no-new-privs, rlimits, the environment allowlist, seccomp) stay.
const sandbox::Capabilities& gpu_worker_capabilities(const WorkerLaunch& launch) {
  if (!launch.sandbox) return sandbox::host_capabilities();
  static std::once_flag once;
  static sandbox::Capabilities caps;
  std::call_once(once, [&] {
    caps = sandbox::host_capabilities();
    if (caps.landlock_abi <= 0) return;
    WorkerLaunch info = launch;  // the plain worker, never under a tool
    info.wrapper.clear();
    info.tool_log = false;
    info.exclusive_gpu = nullptr;  // the probe times nothing
    info.reference_session = nullptr;
    info.pause_link = nullptr;  // its socket is the real run's
    info.timeout = std::chrono::seconds(60);
    info.extra_args.clear();
    // Asked twice before Landlock is given up: one failed start (a busy GPU, a slow driver) must
    // not turn a layer off for the whole process.
    WorkerRun full = run_worker_with(info, nullptr, caps);
    if (full.process.ok()) return;
    full = run_worker_with(info, nullptr, caps);
    if (full.process.ok()) return;
    sandbox::Capabilities without = caps;
    without.landlock_abi = 0;
    const WorkerRun reduced = run_worker_with(info, nullptr, without);
    if (!reduced.process.ok()) return;  // no GPU either way: nothing to learn, keep Landlock
    without.landlock_unavailable =
        "the CUDA driver does not start under Landlock on this host (ptxbench-worker --info, "
        "twice: " +
        full.process.describe() + "; it starts without); left off for the GPU worker only";
    caps = without;
  });
  return caps;
}

// Under compute-sanitizer or ncu the candidate runs in the tool's child process: the CUDA driver
// there must write its own /proc/<pid>, which a Landlock rule made before that process exists
// cannot allow. Landlock is left off for tool runs (recorded); bubblewrap's view and seccomp stay.
sandbox::Capabilities for_tool_runs(sandbox::Capabilities caps) {
  if (caps.landlock_abi > 0) {
    caps.landlock_abi = 0;
    caps.landlock_unavailable =
        "left off under a tool (compute-sanitizer, ncu): the candidate runs in the tool's child process, whose "
        "/proc entry the CUDA driver writes and a rule made before it starts cannot name";
  }
  return caps;
}

}  // namespace

WorkerRun run_worker(const WorkerLaunch& launch, const json& job_in) {
  const sandbox::Capabilities& caps = gpu_worker_capabilities(launch);
  if (!launch.wrapper.empty()) return run_worker_with(launch, job_in, for_tool_runs(caps));
  return run_worker_with(launch, job_in, caps);
}

namespace {

WorkerRun run_worker_with(const WorkerLaunch& launch, const json& job_in, const sandbox::Capabilities& caps) {
  const fs::path dir = make_private_dir(launch.job_dir);
  const std::string key = new_channel_key();
  // Every job names the protocol it follows (core/worker_protocol.h); the worker refuses another.
  json job = stamped_job(job_in.is_null() ? json{{"mode", "info"}} : job_in);
  job["channel_key"] = key;
  // Under compute-sanitizer or ncu their injected libraries share the process: sockets stay
  // allowed and the after-load filter (executable mappings, file creation) is left off.
  const bool tool = !launch.wrapper.empty();
  job["sandbox"] = {{"candidate_filters", launch.sandbox && caps.seccomp},
                    {"under_tool", tool},
                    {"deny_exec_mappings", !tool && !caps.off("exec_mappings")},
                    {"deny_file_opens", !tool && !caps.off("file_opens") && deny_every_file_open()},
                    {"after_load", !tool}};
  std::optional<ExclusiveHandshake> handshake;
  WorkerRun run;
  if (launch.exclusive_gpu) {
    handshake.emplace(launch.exclusive_gpu, launch.shared_gpu_again, launch.paused_beside);
    job["exclusive_gpu_fd"] = kExclusiveGpuFd;
  }
  ReferenceSession* references = tool ? nullptr : launch.reference_session;
  if (references) job["reference_pool_fd"] = kReferencePoolFd;
  // A shared worker's, or a timed worker's while it starts (it closes its socket at its first
  // request for the GPU alone).
  SharedPauseLink* pause_link = tool ? nullptr : launch.pause_link;
  if (pause_link) {
    job["pause_fd"] = kSharedPauseFd;
    pause_link->set_channel_key(key);
  }
  const fs::path job_file = dir / "job.json";
  write_private_file(job_file, job.dump());

  std::vector<std::string> command = launch.wrapper;
  const fs::path tool_log = dir / "tool.log";
  if (launch.tool_log) command.insert(command.end(), {"--log-file", tool_log.string()});
  command.push_back(launch.worker.string());
  if (job_in.is_null()) command.push_back("--info");
  command.insert(command.end(), {"--job", job_file.string()});
  for (const auto& a : launch.extra_args)
    if (a != "--info") command.push_back(a);
  command.insert(command.end(), {"--result-fd", std::to_string(kResultFd)});

  ProcessOptions opt;
  opt.timeout = launch.timeout;
  opt.result_fd = kResultFd;
  if (handshake) {
    opt.pass_fds.push_back({handshake->child_end(), kExclusiveGpuFd});
    opt.pause = handshake->pause();  // the wait for exclusive use is not the worker's time
  }
  if (references) opt.pass_fds.push_back({references->child_end(), kReferencePoolFd});
  if (pause_link) {
    opt.pass_fds.push_back({pause_link->child_end(), kSharedPauseFd});
    // Paused for another worker's timing: not this worker's time (beside its own wait for the GPU alone).
    (opt.pause ? opt.also_paused : opt.pause) = pause_link->pause();
  }
  std::vector<std::string> argv = command;
  bool under_bwrap = false;
  if (launch.sandbox) {
    auto policy = worker_policy(launch.worker, dir, launch.readable, launch.wrapper, launch.timeout);
    policy.read_write.insert(policy.read_write.end(), launch.writable.begin(), launch.writable.end());
    policy.env_set.insert(policy.env_set.end(), launch.environment.begin(), launch.environment.end());
    auto wrapped = sandbox::sandboxed(policy, command, caps);
    argv = std::move(wrapped.argv);
    opt.environment = std::move(wrapped.environment);
    opt.rlimits = std::move(wrapped.rlimits);
    opt.no_new_privs = true;
    under_bwrap = wrapped.mechanisms.contains("bubblewrap") && wrapped.mechanisms["bubblewrap"].value("used", false);
    run.sandbox["process"] = std::move(wrapped.mechanisms);
  } else {
    opt.extra_env = launch.environment;
    run.sandbox["process"] = {{"used", false}, {"why", "run without a sandbox (a test of the worker itself)"}};
  }
  run.process = run_process(argv, opt);
  run.ended_ns = monotonic_clock_ns();
  if (under_bwrap) worker_end_under_bwrap(run.process);
  if (launch.tool_log) run.tool_log = read_all(tool_log);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (pause_link) pause_link->close_child_end();
  if (references) {
    references->close_child_end();
    references->finish();
  }
  if (handshake) {
    handshake->close_child_end();
    handshake->stop();
    run.exclusive_grant_token = handshake->timing_token();
    run.exclusive_grant_tokens = handshake->tokens();
    run.exclusive_handshake_misuse = handshake->misuse();
    handshake->finish();  // rethrows a refused exclusive use (the worker was told and has ended)
  }

  const std::vector<std::string> stages = expected_stages(job_in);
  const bool killed = run.process.timed_out || run.process.term_signal != 0;
  ChannelReport report =
      read_result_lines(run.process.result, key, std::set<std::string>(stages.begin(), stages.end()), killed);
  run.tampered = std::move(report.tampered);
  run.events = std::move(report.events);
  for (const auto& e : run.events) {
    const std::string type = e.value("type", "");
    if (type == "fatal") run.fatal = e;
    if (type == "done") run.done = true;
    if (type == "sandbox") {
      json in_process = e;
      in_process.erase("type");
      run.sandbox["around_candidate"] = in_process;
    }
  }
  if (run.tampered) run.done = false;
  // A worker of another build: nothing it reported is read as this protocol's.
  if (const auto hello = run.hello(); hello && !run.tampered)
    if (std::string why = worker_protocol_mismatch(*hello); !why.empty()) {
      run.fatal = to_json(WorkerFatal{"infra_error", why});
      run.done = false;
    }
  return run;
}

}  // namespace

WorkerRun run_worker(const fs::path& worker, const json& job, const fs::path& job_dir,
                     const std::vector<std::string>& wrapper, std::chrono::seconds timeout,
                     const std::vector<std::string>& extra_args) {
  WorkerLaunch launch;
  launch.worker = worker;
  launch.job_dir = job_dir;
  launch.wrapper = wrapper;
  launch.timeout = timeout;
  launch.extra_args = extra_args;
  if (job.is_object() && job.contains("candidate"))
    launch.readable.push_back(fs::path(job.at("candidate").get<std::string>()).parent_path());
  return run_worker(launch, job);
}

}  // namespace ptxbench
