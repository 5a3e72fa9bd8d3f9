// The service engine's flags, shared by `serve`, `eval`, `run` and `fixit build`: GPUs, lanes per
// GPU, the CPU pool, pipelining, and the job queue (their values: EngineFlags,
// service/service_factory.h).
#pragma once
#include <CLI/CLI.hpp>

#include "service/service_factory.h"

namespace ptxbench::cli {

void add_engine_flags(CLI::App* cmd, EngineFlags& f);

}  // namespace ptxbench::cli
