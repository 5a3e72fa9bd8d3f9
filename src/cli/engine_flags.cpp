// The service engine's flags shared by serve, eval, run and fixit build: GPUs, lanes, CPU pool, queue.
#include "cli/engine_flags.h"

#include "service/queue/redis_url.h"

namespace ptxbench::cli {

void add_engine_flags(CLI::App* cmd, EngineFlags& f) {
  cmd->add_option("--devices", f.devices, "CUDA devices the service uses (each gets its own lanes)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--lanes", f.lanes,
                  "Lanes per GPU for the stages that time nothing (1: no GPU sharing); "
                  "timing always has its GPU alone")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--cpu-jobs", f.cpu_jobs, "Parallel builds and static checks (0: one per core)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--no-pipelining", f.no_pipelining,
                "One candidate at a time through build, static checks and GPU stages");
  cmd->add_flag("--no-pause", f.no_pause,
                "Timing waits for every shared stage to end instead of pausing the eval workers at a call "
                "boundary (their GPU activity checked against its window)");
  cmd->add_option(
         "--max-attempts", f.max_attempts,
         "Runs of a job (eval --sequential: of a file) that infra faults interrupt before it ends as infra_error")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  cmd->add_option("--lease-seconds", f.lease_seconds,
                  "Lease of a job (kept alive while it runs); a killed service's jobs "
                  "run again after it")
      ->check(CLI::Range(2, 3600))
      ->capture_default_str();
  cmd->add_option("--queue", f.queue,
                  "The job queue: the workspace's SQLite lease table by default (one host), or "
                  "redis://HOST:PORT/[DB][?stream=NAME] (Redis Streams, workers on many hosts)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (v.empty()) return "";
            try {
              parse_redis_url(v);
              return "";
            } catch (const std::exception& e) {
              return e.what();
            }
          },
          "redis://HOST:PORT/[DB][?stream=NAME]", "queue URL"));
  cmd->add_flag("--submit-only", f.submit_only,
                "Only queue the candidates (--queue redis://...) and wait for the "
                "records of `ptxbench serve` workers on other hosts: no GPU work here");
}

}  // namespace ptxbench::cli
