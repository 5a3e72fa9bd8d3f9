// Starts ptxbench-worker for one job (optionally under ncu or compute-sanitizer) in its sandbox
// (judge/worker_sandbox.h), with the job in a private file (which carries the result channel's
// key) and the results on a private pipe, and collects what it reported: only lines that verify
// (judge/result_lines.h); a channel that does not verify is `tampered`.
#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/subprocess.h"

namespace ptxbench {

struct WorkerRun {
  ProcessResult process;
  std::vector<json> events;
  std::optional<json> fatal;            // {"verdict", "message"} when the worker reported a fatal error
  bool done = false;                    // the worker finished its job and said so
  std::optional<std::string> tampered;  // the result channel failed verification: candidate code wrote to it
  json sandbox = json::object();        // what confined the process (and, from the worker, around the candidate)
  std::string tool_log;                 // the wrapper's own report (--log-file), when it has one
  // With an exclusive_gpu launch: the token of the harness's grant for the timed samples ("" if
  // it gave none), and every token it granted, the clean-baseline grant's first (timed_grant.h).
  std::string exclusive_grant_token;
  std::vector<std::string> exclusive_grant_tokens;
  std::string exclusive_handshake_misuse;  // bytes on its socket the worker never sends (ExclusiveHandshake::misuse)
  // A shared worker that paused for other workers' timing (judge/shared_pause_link.h): how often, and
  // why its candidate is forbidden ("": nothing found), e.g. its GPU work ran in an exclusive window.
  int shared_pauses = 0;
  std::string pause_violation;
  // When the harness saw the process end, by the host's monotonic clock (core/timestamp.h): with the
  // worker's stamp on its "done", the time its exit took.
  uint64_t ended_ns = 0;

  std::optional<json> stage(const std::string& name) const;
  std::vector<json> of_type(const std::string& type) const;
  std::optional<json> hello() const;
  std::string last_progress() const;                       // "correctness on M=128 N=128 K=64", or empty
  std::string output_tail(size_t max_bytes = 4000) const;  // the candidate's stdout/stderr, trimmed
};

inline constexpr int kResultFd = 3;
inline constexpr int kExclusiveGpuFd = 4;   // the timed worker's handshake (judge/exclusive_handshake.h)
inline constexpr int kReferencePoolFd = 5;  // the eval worker's reference pool socket (judge/reference_session.h)
inline constexpr int kSharedPauseFd = 6;    // a shared worker's pause socket (judge/shared_pause_link.h)

class ReferenceSession;
class SharedPauseLink;

struct WorkerLaunch {
  std::filesystem::path worker;
  std::filesystem::path job_dir;     // a private folder per run is made (and removed) in it
  std::vector<std::string> wrapper;  // compute-sanitizer / ncu prefix, run inside the sandbox
  bool tool_log = false;             // give the wrapper --log-file in the private folder
  std::chrono::seconds timeout{60};
  std::vector<std::string> extra_args;
  std::vector<std::filesystem::path> readable;  // beyond the worker's own folder: the candidate's build folder
  // Read-write beyond the private folder, and NAME=value entries beyond the scrubbed environment:
  // for a simulated GPU's shared state in the service's fault tests, never for candidate output.
  std::vector<std::filesystem::path> writable;
  std::vector<std::string> environment;
  bool sandbox = true;  // false only in tests of the worker itself
  // Set for the timed worker under a lane gate: called (on another thread) when the worker asks for
  // exclusive use of its GPU, before its first timed sample (and before the library's clean
  // timings, when it takes them); it returns once granted, or throws (rethrown by run_worker after
  // the worker ended). Unset: the worker never asks. shared_gpu_again: called when the worker gives
  // the GPU back after the clean timings, before its candidate loads; it returns once the run
  // holds shared use again (unset: the run keeps the GPU alone).
  std::function<void()> exclusive_gpu;
  std::function<void()> shared_gpu_again;
  // Once exclusive use is granted: how many paused shared workers stay on the GPU (unset: none).
  std::function<int()> paused_beside;
  // Set for an eval worker whose correctness checks use the service's reference pool: its socket
  // is passed to the worker (the job says where), and the session is finished once the worker ended.
  ReferenceSession* reference_session = nullptr;
  // Set for a shared-lane worker that pauses when a timed worker wants the GPU alone: its socket is
  // passed to the worker (the job's `pause_fd`), its report is checked with the run's channel key,
  // and its pauses do not count against the deadline.
  SharedPauseLink* pause_link = nullptr;
};

// The stage events a job may report (each once), from its mode and what it asks for.
std::vector<std::string> expected_stages(const json& job);

// `job` null: `--info` (the key still travels in a job file).
WorkerRun run_worker(const WorkerLaunch& launch, const json& job);
WorkerRun run_worker(const std::filesystem::path& worker, const json& job, const std::filesystem::path& job_dir,
                     const std::vector<std::string>& wrapper, std::chrono::seconds timeout,
                     const std::vector<std::string>& extra_args = {});

}  // namespace ptxbench
