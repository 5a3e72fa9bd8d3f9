#include "simulated_executor.h"

#include <signal.h>

#include <algorithm>

#include <cstdlib>
#include <optional>
#include <thread>

#include "judge/infra_fault.h"
#include "judge/shared_pause_link.h"
#include "judge/timed_grant.h"
#include "judge/worker_client.h"

namespace ptxbench::test {

WorkerLaunch fake_worker_launch(const std::filesystem::path& fake_worker, const std::filesystem::path& job_dir,
                                std::chrono::seconds timeout) {
  WorkerLaunch launch;
  launch.worker = fake_worker;
  launch.job_dir = job_dir;
  launch.timeout = timeout;
  if (const char* state = std::getenv("PTXBENCH_FAKE_GPU_STATE"); state && *state) {
    std::filesystem::create_directories(state);
    launch.writable.emplace_back(state);
    launch.environment.push_back(std::string("PTXBENCH_FAKE_GPU_STATE=") + state);
  }
  return launch;
}

SimulatedExecutor::SimulatedExecutor(std::filesystem::path fake_worker, std::filesystem::path job_dir,
                                     std::chrono::milliseconds deadline, bool pausable_shared,
                                     bool pausable_timed_start)
    : worker_(std::move(fake_worker)),
      job_dir_(std::move(job_dir)),
      deadline_(deadline),
      pausable_shared_(pausable_shared),
      pausable_timed_start_(pausable_timed_start) {}

PreparedJob SimulatedExecutor::prepare(const LeasedJob& job) {
  PreparedJob p;
  std::this_thread::sleep_for(std::chrono::milliseconds(job.payload.value("prepare_ms", 1)));
  if (job.payload.value("build", "ok") == "compile_error") {
    p.result = {{"job", job.id}, {"verdict", "compile_error"}, {"reason", "nvcc failed"}, {"attempt", job.attempts}};
    return p;
  }
  p.needs_gpu = true;
  return p;
}

json SimulatedExecutor::run_on_gpu(const LeasedJob& job, PreparedJob&, GpuLaneGate& gate, int device) {
  const bool faulty = job.attempts <= job.payload.value("fault_attempts", 1);
  const std::string fault = faulty ? job.payload.value("fault", "") : "";
  const int ms = job.payload.value("ms", 5);
  const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(deadline_);
  json result = {{"job", job.id}, {"device", device}, {"attempt", job.attempts}};
  // An eval job as the channel sees it: the shared phase may report its correctness stage.
  auto run_phase = [&](const char* phase, TimedWorkerUse* timed_use = nullptr, SharedPauseLink* pause = nullptr) {
    json stage = {{"mode", "eval"}, {"accounting", false}, {"stream_discipline", false},
                  {"phase", phase}, {"device", device},    {"ms", ms},
                  {"job", job.id}};
    const bool timed = std::string(phase) == "timed";
    if (timed == (fault == "throttle")) stage["fault"] = fault;
    if (job.payload.contains("channel")) stage["channel"] = job.payload["channel"];
    if (timed) stage["setup_ms"] = job.payload.value("setup_ms", 0);
    if (timed && job.payload.contains("grant")) stage["grant"] = job.payload["grant"];
    if (timed) stage["clean_baseline_ms"] = job.payload.value("clean_baseline_ms", 0);
    if (!timed && job.payload.contains("pause_fault")) stage["pause_fault"] = job.payload["pause_fault"];
    if (timed && job.payload.contains("start_pause_fault")) stage["pause_fault"] = job.payload["start_pause_fault"];
    if (job.payload.contains("call_ms")) stage["call_ms"] = job.payload["call_ms"];
    WorkerLaunch launch = fake_worker_launch(worker_, job_dir_, std::max(timeout, std::chrono::seconds(1)));
    if (timed_use) {
      launch.exclusive_gpu = [timed_use] { timed_use->become_exclusive(); };
      launch.shared_gpu_again = [timed_use] { timed_use->become_shared(); };
      launch.paused_beside = [timed_use] { return timed_use->paused_beside(); };
    }
    launch.pause_link = pause;
    return run_worker(launch, stage);
  };
  auto tampered = [&](const WorkerRun& run) {
    result["verdict"] = "forbidden";
    result["reason"] = "the worker's result channel was tampered with: " + *run.tampered;
    return result;
  };
  {
    std::optional<SharedPauseLink> link;
    if (pausable_shared_) link.emplace();
    WorkerRun run;
    {
      auto use = gate.shared_use(link ? &*link : nullptr);
      run = run_phase("shared", nullptr, link ? &*link : nullptr);
    }
    if (run.tampered) return tampered(run);
    if (link) {
      result["shared_pauses"] = link->pauses();
      if (const std::string why = link->violation(); !why.empty()) {
        result["verdict"] = "forbidden";
        result["reason"] = "paused for another worker's timing: " + why;
        return result;
      }
    }
    if (run.fatal && run.fatal->value("verdict", "") == "infra_error")
      throw InfraFault("harness error: " + run.fatal->value("message", ""));
    if (!run.done && run.process.term_signal == SIGKILL && !run.process.timed_out)
      throw InfraFault("the worker was killed from outside (SIGKILL) during " + run.last_progress());
    if (!run.done) {
      result["verdict"] = "runtime_error";
      result["reason"] = run.fatal               ? "CUDA error: " + run.fatal->value("message", "")
                         : run.process.timed_out ? "timeout: " + run.process.describe()
                                                 : run.process.describe();
      return result;
    }
    auto st = run.stage("correctness");
    if (!st) throw InfraFault("the simulated worker reported no correctness stage");
    result["overlap"] = st->value("overlap", false);
    if (st->value("status", "") != "ok") {
      result["verdict"] = "incorrect";
      result["reason"] = st->value("message", "");
      return result;
    }
  }
  // As the real timed stage: shared while the worker starts, exclusive once it asks; a window a
  // paused shared worker ran in is timed again, once every shared worker ended.
  WorkerRun run;
  for (int attempt = 0;; ++attempt) {
    std::optional<SharedPauseLink> start_pause;
    if (pausable_timed_start_) start_pause.emplace();
    TimedWorkerUse use(gate, /*draining=*/attempt > 0, start_pause ? &*start_pause : nullptr);
    run = run_phase("timed", &use, start_pause ? &*start_pause : nullptr);
    const std::string untrusted = use.end();
    if (run.tampered) return tampered(run);
    if (start_pause) {
      result["timed_start_pauses"] = result.value("timed_start_pauses", 0) + start_pause->pauses();
      // As the real timed stage: its GPU work ran in another worker's window after it said it paused.
      if (const std::string why = start_pause->violation(); !why.empty()) {
        result["verdict"] = "forbidden";
        result["reason"] = "paused while its timed worker started, for another worker's timing: " + why;
        return result;
      }
    }
    // As the real timed stage (judge/stages/timed_worker_stage.cpp): timed on a grant the harness never gave.
    if (const std::string why = why_timed_without_grant(run, use.exclusive()); !why.empty()) {
      result["verdict"] = "forbidden";
      result["reason"] = why;
      return result;
    }
    if (untrusted.empty() || attempt > 0) break;
    result["timing_taken_again"] = untrusted;
    result["first_timing_overlap"] =
        !run.of_type("timing").empty() && run.of_type("timing").front().value("overlap", false);
  }
  if (!run.done) throw InfraFault("the timed stage ended early: " + run.process.describe());
  auto timing = run.of_type("timing");
  if (timing.empty()) throw InfraFault("the timed stage reported no timing");
  result["verdict"] = "correct";
  result["median_ms"] = timing.front().value("median_ms", 0.0);
  result["throttled"] = timing.front().value("throttled", false);
  result["gpu_state"] = timing.front().value("gpu_state", json::object());
  result["overlap"] = result.value("overlap", false) || timing.front().value("overlap", false);
  result["setup_beside_shared"] = timing.front().value("setup_beside_shared", false);
  result["settled_after_grant"] = timing.front().value("settled_after_grant", false);
  result["clean_baseline_beside_shared"] = timing.front().value("clean_baseline_beside_shared", false);
  for (const auto& g : run.of_type("exclusive_gpu"))
    result["paused_beside"] = std::max(result.value("paused_beside", 0), g.value("paused_beside", 0));
  return result;
}

bool SimulatedExecutor::suspicious(const json& result) const { return result.value("verdict", "") == "runtime_error"; }

std::string SimulatedExecutor::throttled_during_timing(const json& result) const {
  return result.value("throttled", false) ? "NVML reported sw_thermal_slowdown during a timed sample" : "";
}

EngineOptions simulated_engine_options(int shared_lanes, int cpu_jobs, int lease_ms, int heartbeats_per_lease) {
  EngineOptions o;
  o.devices = {0, 1};
  o.shared_lanes = shared_lanes;
  o.cpu_jobs = cpu_jobs;
  o.lease_ttl = std::chrono::milliseconds(lease_ms);
  o.heartbeat_interval = std::chrono::milliseconds(lease_ms / heartbeats_per_lease);
  o.idle_poll = std::chrono::milliseconds(20);
  o.max_timing_wait = std::chrono::seconds(20);
  return o;
}

MonitorOptions simulated_monitor_options() {
  MonitorOptions m;
  m.recovery_interval = std::chrono::milliseconds(50);
  return m;
}

}  // namespace ptxbench::test
