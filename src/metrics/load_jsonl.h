// Reads runs and turns from a JSONL file: this project's ptxbench.metrics/1 lines (one "run" line
// per run, one "turn" line per turn; docs/metrics.md, "Input files"), or the agent's export
// (`ptxbench runs export RUN --jsonl`, ptxbench.turn/1: one self-contained object per turn).
// Bad input is an InputError naming the file, the line and the field.
#pragma once
#include <filesystem>

#include "metrics/load_options.h"
#include "metrics/turn_model.h"

namespace ptxbench::metrics {

inline constexpr const char* kMetricsFormat = "ptxbench.metrics/1";
inline constexpr const char* kAgentTurnFormat = "ptxbench.turn/1";

TurnSet load_jsonl(const std::filesystem::path& path, const LoadOptions& options = {});

}  // namespace ptxbench::metrics
