// `runs`: one row per run read, with its provenance. Text: the runs and their provenance.
#include "report/metric_table.h"
#include "report/paper_layout.h"
#include "report/provenance.h"

namespace ptxbench::report {
namespace {

std::optional<Table> runs_table(const MetricInput& in) {
  Table t = plain_table("runs", "Runs and their provenance", "One row per run read.",
                        {{"run", FieldType::string, "", "run id"},
                         {"model", FieldType::string, "", "PROVIDER:MODEL"},
                         {"arch", FieldType::string, "", "target architecture"},
                         {"gpu", FieldType::string, "", "GPU the run was judged on"},
                         {"knowledge", FieldType::string, "", "prompt knowledge components"},
                         {"suite", FieldType::string, "", "suite name, when the run names one"},
                         {"status", FieldType::string, "", "running, complete or stopped (as stored)"},
                         {"problems", FieldType::string, "", "the run's problems"},
                         {"trajectories", FieldType::integer, "per problem", "trajectory budget"},
                         {"turns", FieldType::integer, "per trajectory", "turn budget"},
                         {"harness_version", FieldType::string, "", "ptxbench version that ran it"},
                         {"harness_commit", FieldType::string, "", "git commit of that harness"},
                         {"harness_dirty", FieldType::string, "", "uncommitted changes in that build"},
                         {"nvcc", FieldType::string, "", "nvcc version candidates were built with"},
                         {"driver", FieldType::string, "", "GPU driver"},
                         {"seed_policy", FieldType::string, "", "how correctness and timing inputs were seeded"},
                         {"source", FieldType::string, "", "file or workspace it was read from"}});
  for (const auto& r : in.set.runs) {
    const Provenance p = from_run_provenance(r.provenance);
    std::string problems;
    for (const auto& x : r.problems) problems += (problems.empty() ? "" : ",") + x;
    t.add({r.id, r.model, r.arch, r.gpu.empty() ? p.gpu : r.gpu, r.knowledge, r.suite, r.status, problems,
           ll(r.trajectories), ll(r.turns), p.harness_version, p.harness_commit, p.harness_dirty, p.nvcc, p.driver,
           p.seed_policy, r.source});
  }
  return t;
}

std::vector<Grid> runs_grid(const Report& r) {
  const Table* t = r.table("runs");
  if (!t) return {};
  return {plain_grid(*t, {"run", "model", "arch", "gpu", "knowledge", "status", "trajectories", "turns",
                          "harness_version", "harness_commit", "nvcc", "driver", "seed_policy"})};
}

PTXBENCH_REGISTER_METRIC_TABLE(10, runs_table);
PTXBENCH_REGISTER_TEXT_SECTION(10, runs_grid);

}  // namespace
}  // namespace ptxbench::report
