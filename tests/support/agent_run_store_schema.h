// The agent's run-store tables (runs, trajectories, candidates, turns) with the names and types its
// src/store/schema_migrations.cpp (migration 2) gives them, for tests and benchmarks that build a
// workspace database the report loader (src/metrics/load_workspace.cpp) reads. The evaluations
// table comes from WorkspaceDb itself.
#pragma once

namespace ptxbench::test {

inline constexpr const char* kAgentRunStoreSchema = R"sql(
CREATE TABLE runs (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, status TEXT NOT NULL,
  stop_reason TEXT NOT NULL, model TEXT NOT NULL, arch TEXT NOT NULL, knowledge TEXT NOT NULL, problems TEXT NOT NULL,
  trajectories INTEGER NOT NULL, turns INTEGER NOT NULL, identity_sha256 TEXT NOT NULL, config_json TEXT NOT NULL,
  provenance_json TEXT NOT NULL);
CREATE TABLE trajectories (run_id TEXT NOT NULL, problem TEXT NOT NULL, trajectory INTEGER NOT NULL,
  turns_done INTEGER NOT NULL, status TEXT NOT NULL, PRIMARY KEY (run_id, problem, trajectory));
CREATE TABLE candidates (sha256 TEXT PRIMARY KEY, source BLOB NOT NULL, size INTEGER NOT NULL, first_seen_at TEXT NOT NULL);
CREATE TABLE turns (run_id TEXT NOT NULL, problem TEXT NOT NULL, trajectory INTEGER NOT NULL, turn INTEGER NOT NULL,
  phase TEXT NOT NULL, state TEXT NOT NULL, provider_outcome TEXT NOT NULL, model_call_id INTEGER NOT NULL,
  candidate_sha256 TEXT, extraction_json TEXT NOT NULL, evaluation_id INTEGER, reused_evaluation INTEGER NOT NULL,
  verdict TEXT, target_static INTEGER, target_executed INTEGER, target_correct INTEGER, speedup_geomean REAL,
  feedback BLOB NOT NULL, feedback_version TEXT NOT NULL, context_json TEXT NOT NULL, input_tokens INTEGER,
  output_tokens INTEGER, reasoning_tokens INTEGER, reasoning_chars INTEGER NOT NULL, cost_usd REAL,
  model_seconds REAL NOT NULL, compile_wait_seconds REAL NOT NULL, prepare_seconds REAL NOT NULL,
  build_seconds REAL NOT NULL, gpu_wait_seconds REAL NOT NULL, gpu_seconds REAL NOT NULL, started_at TEXT NOT NULL,
  replied_at TEXT NOT NULL, finished_at TEXT NOT NULL, PRIMARY KEY (run_id, problem, trajectory, turn));
)sql";

}  // namespace ptxbench::test
