// `ptxbench results`: stored evaluation records as one table with their arch and provenance.
#include "report/results_report.h"

#include "report/provenance.h"

namespace ptxbench::report {

Report build_results_report(const std::vector<std::pair<long long, EvaluationRecord>>& rows,
                            const std::string& source) {
  Report r;
  r.format = "ptxbench.results/1";
  r.meta = {{"title", "PTXBench evaluations"},
            {"inputs", json::array({source})},
            {"text_fields",
             {{"evaluations",
               {"id", "created_at", "problem", "arch", "gpu", "verdict", "target_executed", record_key::speedup_geomean,
                "candidate", "harness_version", "harness_commit", "nvcc", "driver", "seed_policy"}}}}};
  Table t;
  t.name = "evaluations";
  t.title = "Stored evaluations";
  t.description = "One row per evaluation record, most recent first, with the provenance it was recorded with.";
  t.fields = {
      {"id", FieldType::integer, "", "evaluation id in the workspace database"},
      {"created_at", FieldType::string, "", "ISO-8601 UTC"},
      {"problem", FieldType::string, "", ""},
      {"arch", FieldType::string, "", "target architecture"},
      {"gpu", FieldType::string, "", "GPU it was judged on (empty: none)"},
      {"verdict", FieldType::string, "", ""},
      {"reason", FieldType::string, "", "why this verdict"},
      {"target_static", FieldType::boolean, "", "every target group in the cubin's SASS"},
      {"target_executed", FieldType::boolean, "",
       "the target instructions did the work: every group executed and the shares reached the problem's minimums; "
       "null: unknown"},
      {"target_seen", FieldType::boolean, "", "every target group executed (the paper's looser flag); null: unknown"},
      {"tensor_flop_share", FieldType::number, "fraction", "share of the FLOPs done by the target tensor instructions"},
      {"tma_byte_share", FieldType::number, "x operand bytes",
       "bytes moved by TMA copies (a lower bound) per operand byte"},
      {record_key::speedup_geomean, FieldType::number, "x (library time / candidate time)",
       "geomean over the benchmark shapes"},
      {"candidate", FieldType::string, "", "candidate file"},
      {"candidate_sha256", FieldType::string, "", ""},
      {"harness_version", FieldType::string, "", "ptxbench version that judged it"},
      {"harness_commit", FieldType::string, "", "its git commit"},
      {"harness_dirty", FieldType::string, "", "uncommitted changes in that build"},
      {"nvcc", FieldType::string, "", "nvcc version"},
      {"driver", FieldType::string, "", "GPU driver (NVML) and CUDA driver API version"},
      {"seed_policy", FieldType::string, "", "how correctness and timing inputs were seeded"}};
  for (const auto& [id, rec] : rows) {
    const Provenance p = from_record_environment(rec.environment, rec.gpu);
    t.add({id,
           rec.created_at,
           rec.problem,
           rec.arch,
           rec.gpu,
           std::string(to_string(rec.verdict)),
           rec.reason,
           rec.target_static,
           opt(rec.target_executed),
           opt(rec.target_seen),
           opt(rec.tensor_flop_share),
           opt(rec.tma_byte_share),
           opt(rec.speedup_geomean),
           rec.candidate_path,
           rec.candidate_sha256,
           p.harness_version,
           p.harness_commit,
           p.harness_dirty,
           p.nvcc,
           p.driver,
           p.seed_policy});
  }
  r.add(std::move(t));
  return r;
}

}  // namespace ptxbench::report
