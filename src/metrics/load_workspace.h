// Reads runs and turns from a workspace database written by `ptxbench run` (the agent's run store),
// through the store's read-only reader (store/workspace_reader.h), which owns the SQL.
// Tables and columns it reads (read-only), docs/metrics.md "Input files":
//   runs(id, model, arch, knowledge, problems, trajectories, turns, status, config_json, provenance_json)
//   trajectories(run_id, problem, trajectory, status)        status 'complete' = finished
//   turns: every declared field (store/turn_row.h) its table has; trajectory/turn 0-based
//   evaluations(id, gpu)
// and, for the drill-down only: turns' payloads (feedback, context, extraction), candidates(sha256, source),
// evaluations(record_json) for the verdict reason and per-shape timings.
#pragma once
#include <filesystem>

#include "metrics/load_options.h"
#include "metrics/turn_model.h"

namespace ptxbench::metrics {

// `path`: the workspace folder (holding ptxbench.db) or the database file itself.
TurnSet load_workspace(const std::filesystem::path& path, const LoadOptions& options = {});

}  // namespace ptxbench::metrics
