// Writes a synthetic workspace for the report benchmark (scripts/bench_report.sh): the agent's run
// store tables (tests/support/agent_run_store_schema.h) and the evaluations table, filled with
// `--turns N` turns (default 10,000) of 4 models x 5 problems x 8 turns, each with a candidate
// source of about 3 KB, feedback, and an evaluation record with per-shape timings. Deterministic.
//
//   report_synthetic_workspace --out DIR [--turns N]
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>

#include "core/json.h"
#include "core/record.h"
#include "store/workspace_db.h"
#include "support/agent_run_store_schema.h"

using namespace ptxbench;

namespace {

void exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::cerr << "SQL error: " << (msg ? msg : "?") << "\n";
    std::exit(1);
  }
}

struct Stmt {
  sqlite3_stmt* st = nullptr;
  Stmt(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) {
      std::cerr << "prepare: " << sqlite3_errmsg(db) << "\n";
      std::exit(1);
    }
  }
  ~Stmt() { sqlite3_finalize(st); }
  void text(int i, const std::string& s) {
    sqlite3_bind_text(st, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void step(sqlite3* db) {
    if (sqlite3_step(st) != SQLITE_DONE) {
      std::cerr << "step: " << sqlite3_errmsg(db) << "\n";
      std::exit(1);
    }
    sqlite3_reset(st);
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string out;
  long turns_wanted = 10000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--turns" && i + 1 < argc) turns_wanted = std::stol(argv[++i]);
    else {
      std::cerr << "usage: report_synthetic_workspace --out DIR [--turns N]\n";
      return 1;
    }
  }
  if (out.empty()) {
    std::cerr << "usage: report_synthetic_workspace --out DIR [--turns N]\n";
    return 1;
  }
  const std::vector<std::string> models = {"anthropic:claude-opus-4-8", "google:gemini-3.1-pro", "zai:glm-5.2",
                                           "vllm:qwen3.6-27b"};
  const std::vector<std::string> problems = {"gemm", "mha_fwd", "mha_fwd_causal", "mha_bwd", "mha_bwd_causal"};
  const int turns = 8;
  const int trajectories =
      static_cast<int>(std::ceil(double(turns_wanted) / double(models.size() * problems.size() * turns)));
  const auto file = std::filesystem::path(out) / "ptxbench.db";
  std::filesystem::create_directories(out);
  std::filesystem::remove(file);
  { WorkspaceDb db(file); }  // the evaluations table
  sqlite3* db = nullptr;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) return 1;
  exec(db, test::kAgentRunStoreSchema);
  exec(db, "BEGIN");
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  Stmt run_st(db,
              "INSERT INTO runs VALUES (?1, '2026-12-01T00:00:00.000Z', '2026-12-01T01:00:00.000Z', 'complete', '', "
              "?2, 'sm_90a', "
              "'params,ptx,contract', 'gemm,mha_fwd,mha_fwd_causal,mha_bwd,mha_bwd_causal', ?3, 8, '', '{}', ?4)");
  Stmt traj_st(db, "INSERT INTO trajectories VALUES (?1, ?2, ?3, 8, 'complete')");
  Stmt cand_st(db, "INSERT INTO candidates VALUES (?1, ?2, ?3, '')");
  Stmt eval_st(db,
               "INSERT INTO evaluations (created_at, problem, arch, gpu, candidate_sha256, verdict, target_executed, "
               "speedup_geomean, "
               "record_json) VALUES ('2026-12-01T00:00:00Z', ?1, 'sm_90a', 'NVIDIA H200', ?2, ?3, ?4, ?5, ?6)");
  Stmt turn_st(
      db,
      "INSERT INTO turns VALUES (?1, ?2, ?3, ?4, 'done', ?5, 'ok', 1, ?6, '{}', ?7, 0, ?8, NULL, ?9, NULL, ?10, ?11, "
      "'feedback/1', '{}', 20000, 3000, ?12, ?13, NULL, 30, 0, 1, 20, 0, 12, '', '', '')");
  const json provenance = {{"harness", {{"version", "0.1.0"}, {"commit", std::string(40, '0')}, {"dirty", false}}},
                           {"nvcc", "13.0.88"},
                           {"gpu", {{"name", "NVIDIA H200"}, {"hello", {{"cuda_driver", 13000}}}}}};
  const char* errors[] = {"compile_error", "runtime_error", "incorrect", "sanitizer_error", "incorrect", "no_code"};
  const std::string filler(2800, 'x');
  long written = 0;
  for (size_t m = 0; m < models.size(); ++m) {
    const std::string run = "bench-" + std::to_string(m);
    run_st.text(1, run), run_st.text(2, models[m]);
    sqlite3_bind_int(run_st.st, 3, trajectories);
    run_st.text(4, provenance.dump());
    run_st.step(db);
    const double skill = 0.55 - 0.1 * double(m);
    for (const auto& p : problems)
      for (int t = 0; t < trajectories; ++t) {
        traj_st.text(1, run), traj_st.text(2, p);
        sqlite3_bind_int(traj_st.st, 3, t);
        traj_st.step(db);
        for (int k = 0; k < turns; ++k) {
          const double r = u(rng);
          const bool correct = r < skill * (0.6 + 0.05 * k);
          const bool target = correct && u(rng) < 0.8;
          const std::string state = correct ? "correct" : errors[static_cast<size_t>(u(rng) * 6)];
          const std::string sha = run + "/" + p + "/" + std::to_string(t) + "/" + std::to_string(k);
          const std::string code = "// " + sha + "\n#include <cuda.h>\nextern \"C\" cudaError_t ptxbench_" + p +
                                   "(...) {\n  // " + filler + "\n}\n";
          cand_st.text(1, sha), cand_st.text(2, code);
          sqlite3_bind_int(cand_st.st, 3, static_cast<int>(code.size()));
          cand_st.step(db);
          long long eval_id = 0;
          double speedup = 0;
          if (state != "no_code") {
            EvaluationRecord rec;
            rec.problem = p, rec.arch = "sm_90a", rec.gpu = "NVIDIA H200", rec.candidate_sha256 = sha;
            rec.verdict = *verdict_from_string(state);
            rec.reason = correct ? "correct on every shape and seed" : "failed: " + state;
            if (correct) {
              rec.target_executed = target;
              double log_sum = 0;
              for (int s = 0; s < 3; ++s) {
                ShapeTiming st;
                st.shape = {{"M", 4096 << s}, {"N", 4096}, {"K", 4096}};
                st.baseline_median_ms = 0.2 * (s + 1);
                st.speedup = std::exp(std::log(0.3) + u(rng) * (std::log(1.3) - std::log(0.3)));
                st.median_ms = st.baseline_median_ms / st.speedup;
                log_sum += std::log(st.speedup);
                rec.timing.push_back(st);
              }
              speedup = std::exp(log_sum / 3);
              rec.speedup_geomean = speedup;
            }
            eval_st.text(1, p), eval_st.text(2, sha), eval_st.text(3, state);
            sqlite3_bind_int(eval_st.st, 4, correct ? (target ? 1 : 0) : -1);
            if (correct) sqlite3_bind_double(eval_st.st, 5, speedup);
            else sqlite3_bind_null(eval_st.st, 5);
            eval_st.text(6, to_json(rec).dump());
            eval_st.step(db);
            eval_id = sqlite3_last_insert_rowid(db);
          }
          turn_st.text(1, run), turn_st.text(2, p);
          sqlite3_bind_int(turn_st.st, 3, t);
          sqlite3_bind_int(turn_st.st, 4, k);
          turn_st.text(5, state);
          if (state == "no_code")
            sqlite3_bind_null(turn_st.st, 6), sqlite3_bind_null(turn_st.st, 7), sqlite3_bind_null(turn_st.st, 8);
          else turn_st.text(6, sha), sqlite3_bind_int64(turn_st.st, 7, eval_id), turn_st.text(8, state);
          if (correct) sqlite3_bind_int(turn_st.st, 9, target ? 1 : 0), sqlite3_bind_double(turn_st.st, 10, speedup);
          else sqlite3_bind_null(turn_st.st, 9), sqlite3_bind_null(turn_st.st, 10);
          turn_st.text(11, "feedback for " + sha + ": " + state + "\n" + std::string(400, 'f'));
          const long long reasoning = 1000 + static_cast<long long>(u(rng) * 8000);
          if (m < 2) sqlite3_bind_int64(turn_st.st, 12, reasoning);
          else sqlite3_bind_null(turn_st.st, 12);
          sqlite3_bind_int64(turn_st.st, 13, reasoning * 4);
          turn_st.step(db);
          ++written;
        }
      }
  }
  exec(db, "COMMIT");
  sqlite3_close(db);
  std::printf("%ld turns (%zu models x %zu problems x %d trajectories x %d turns) in %s\n", written, models.size(),
              problems.size(), trajectories, turns, file.c_str());
  return 0;
}
