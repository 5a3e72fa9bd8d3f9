// The service engine's flags, shared by `serve` and `eval` (several files): GPUs, lanes per GPU,
// the CPU pool, pipelining, and the job queue (--queue: the workspace's SQLite lease table, or
// Redis Streams shared by hosts; --submit-only: queue for `serve` workers elsewhere and wait).
#pragma once
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "service/engine/service_engine.h"

namespace ptxbench::cli {

struct EngineFlags {
  std::vector<int> devices{0};
  int lanes = 3;     // shared lanes per GPU
  int cpu_jobs = 0;  // 0: one per core
  bool no_pipelining = false;
  int max_attempts = 3;
  int lease_seconds = 120;  // a dead owner's jobs are re-leased after this
  std::string queue;        // empty: the workspace's SQLite queue; redis://HOST:PORT/[DB][?stream=NAME]
  bool submit_only = false; // no engine here: `serve` workers on other hosts judge the jobs
};

void add_engine_flags(CLI::App* cmd, EngineFlags& f);
EngineOptions engine_options(const EngineFlags& f);

}  // namespace ptxbench::cli
