// The service engine's flags, shared by `serve` and `eval` (several files): GPUs, lanes per GPU,
// the CPU pool, pipelining.
#pragma once
#include <CLI/CLI.hpp>

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
};

void add_engine_flags(CLI::App* cmd, EngineFlags& f);
EngineOptions engine_options(const EngineFlags& f);

}  // namespace ptxbench::cli
