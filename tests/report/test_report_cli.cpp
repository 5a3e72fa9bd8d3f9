// `ptxbench report` and `ptxbench results` as a user runs them: formats, options, clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

#include "fixtures.h"
#include "store/workspace_db.h"
#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

CliRun cli(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{(bin_dir() / "ptxbench").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.timeout = std::chrono::seconds(120);
  o.max_output_bytes = 64 << 20;
  o.extra_env = env;
  CliRun r;
  r.process = run_process(argv, o);
  r.output = json::parse(r.process.out, nullptr, false);
  if (r.output.is_discarded()) r.output = nullptr;
  return r;
}

std::string fx(const char* name) { return report_fixture(name).string(); }

const json* table(const json& report, const std::string& name) {
  for (const auto& t : report["tables"])
    if (t["name"] == name) return &t;
  return nullptr;
}

TEST(ReportCli, JsonOfThePaperFixture) {
  auto r = cli({"report", fx("paper_12x8.jsonl"), "--format", "json"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  ASSERT_FALSE(r.output.is_null());
  EXPECT_EQ(r.output["format"], "ptxbench.report/1");
  EXPECT_NE(r.output["meta"]["generator"].get<std::string>().find("ptxbench 0.1.0 (commit "), std::string::npos);
  const json* c = table(r.output, "correctness");
  ASSERT_NE(c, nullptr);
  bool found = false;
  for (const auto& row : (*c)["rows"])
    if (row["budget"] == 4) {
      found = true;
      EXPECT_EQ(row["target_correct"], 29);
      EXPECT_EQ(row["turns"], 48);
    }
  EXPECT_TRUE(found);
  const json* runs = table(r.output, "runs");
  EXPECT_EQ((*runs)["rows"][0]["harness_commit"], "0123456789abcdef0123456789abcdef01234567");
}

TEST(ReportCli, CompareTableAndCsvOfOneTable) {
  auto r = cli({"report", fx("ablation.jsonl"), "--format", "csv", "--table", "comparison", "--budgets", "2",
                "--compare", "knowledge=params,ptx..knowledge=params,ptx,contract"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_EQ(r.process.out.rfind("table,comparison,a,b,problem,budget,metric,", 0), 0u) << r.process.out;
  // A value holding commas is quoted.
  EXPECT_NE(r.process.out.find(
                "comparison,\"knowledge=params,ptx..knowledge=params,ptx,contract\",\"knowledge=params,ptx\","),
            std::string::npos)
      << r.process.out;
}

TEST(ReportCli, MarkdownGroupedByModelOnlyAndPerTaskFastp) {
  auto r = cli({"report", fx("edge_cases.jsonl"), fx("ablation.jsonl"), "--format", "md", "--group-by", "model,problem",
                "--fastp-unit", "task"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  EXPECT_NE(r.process.out.find("unit: task"), std::string::npos);
  EXPECT_NE(r.process.out.find("| google:gemini-3.1-pro |"), std::string::npos) << r.process.out.substr(0, 3000);
}

// Real runs (scripts/triton_h200.sh compare on an H100, 2026-12-05): the nine CUDA wgmma+TMA
// references and the nine tuned Triton references as files: runs, compared per problem.
TEST(ReportCli, TritonAgainstCudaFromRealRunsPerProblem) {
  auto r = cli({"report", fx("h100_refs_cuda.jsonl"), fx("h100_refs_triton.jsonl"), "--format", "json", "--budgets",
                "1", "--compare", "language=cuda..language=triton"});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  const json* c = table(r.output, "comparison");
  ASSERT_NE(c, nullptr);
  std::map<std::string, double> speedup_difference;
  for (const auto& row : (*c)["rows"]) {
    if (row["metric"] == "target_rate") {
      EXPECT_EQ(row["a_value"], 1.0) << row.dump();  // every reference executed its targets, both languages
      EXPECT_EQ(row["b_value"], 1.0) << row.dump();
    }
    if (row["metric"] == "best_speedup")
      speedup_difference[row["problem"].get<std::string>()] = row["difference"].get<double>();
  }
  ASSERT_EQ(speedup_difference.size(), 9u);
  EXPECT_GT(speedup_difference.at("gemm"), 0.3) << "Triton's persistent TMA GEMM: 0.975x vs 0.624x cuBLASLt";
  EXPECT_LT(speedup_difference.at("mha_fwd"), -0.2) << "the CUDA flash forward: 0.932x vs 0.658x cuDNN";
}

TEST(ReportCli, BadInputIsAClearError) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"report", fx("paper_12x8.jsonl"), "--budgets", "1,x"}, "--budgets: 'x'"},
      {{"report", fx("paper_12x8.jsonl"), "--format", "pdf"}, "--format: 'pdf'"},
      {{"report", "/no/such/run.jsonl"}, "/no/such/run.jsonl"},
      {{"report", fx("paper_12x8.jsonl"), "--group-by", "color"}, "unknown dimension 'color'"},
      {{"report", fx("paper_12x8.jsonl"), "--compare", "paper-gemm"}, "write A..B"},
      {{"report", fx("paper_12x8.jsonl"), "--compare", "paper-gemm..other"}, "'other' selects no trajectory"},
      {{"report", fx("paper_12x8.jsonl"), "--run", "other"}, "--run other: no such run"},
      {{"report", fx("paper_12x8.jsonl"), "--table", "nope"}, "no table 'nope'"},
      {{"report", fx("paper_12x8.jsonl"), "--format", "html", "--table", "runs"}, "--table does not apply"},
      {{"report", fx("paper_12x8.jsonl"), fx("paper_12x8.jsonl")}, "appears in both"},
  };
  for (const auto& c : cases) {
    auto r = cli(c.args);
    EXPECT_EQ(r.process.exit_code, 1) << c.says << "\n" << r.process.err;
    EXPECT_NE(r.process.err.find(c.says), std::string::npos) << r.process.err;
  }
}

TEST(ReportCli, HtmlWithoutPlotlySaysHowToGetIt) {
  auto r = cli({"report", fx("paper_12x8.jsonl"), "--format", "html"}, {"PTXBENCH_PLOTLY_JS=/no/plotly.min.js"});
  EXPECT_EQ(r.process.exit_code, 1);
  EXPECT_NE(r.process.err.find("PTXBENCH_PLOTLY_JS=/no/plotly.min.js: no such file"), std::string::npos)
      << r.process.err;
}

TEST(ReportCli, HtmlIsOneSelfContainedFile) {
  const auto out = fresh_workspace("report-html") / "r.html";
  auto r = cli({"report", fx("paper_12x8.jsonl"), "--format", "html", "--out", out.string()});
  ASSERT_EQ(r.process.exit_code, 0) << r.process.err;
  ProcessOptions cat_options;
  cat_options.timeout = std::chrono::seconds(30);
  cat_options.max_output_bytes = 64 << 20;
  ProcessResult cat = run_process({"cat", out.string()}, cat_options);
  const std::string& page = cat.out;
  EXPECT_NE(page.find("Plotly"), std::string::npos);
  EXPECT_EQ(page.find("<script src="), std::string::npos) << "nothing loaded from outside the file";
  EXPECT_EQ(page.find("http://cdn"), std::string::npos);
  EXPECT_NE(page.find("id=\"d-11\""), std::string::npos) << "one detail element per trajectory";
  EXPECT_EQ(page.find("id=\"d-12\""), std::string::npos);
  std::filesystem::remove_all(out.parent_path());
}

TEST(ResultsCli, FormatsShowArchAndProvenance) {
  const auto ws = fresh_workspace("results-formats");
  {
    WorkspaceDb db(ws / "ptxbench.db");
    EvaluationRecord rec;
    rec.problem = "gemm", rec.arch = "sm_90a", rec.candidate_path = "k.cu", rec.created_at = "2026-12-01T00:00:00Z";
    rec.verdict = Verdict::incorrect;
    rec.environment = {{"harness", {{"version", "0.1.0"}, {"commit", "deadbeef"}, {"dirty", false}}},
                       {"nvcc_version", "13.0.88"}};
    ASSERT_TRUE(db.insert(rec).ok);
  }
  auto csv = cli({"--workspace", ws.string(), "results", "--format", "csv"});
  ASSERT_EQ(csv.process.exit_code, 0) << csv.process.err;
  EXPECT_NE(csv.process.out.find(",arch,"), std::string::npos);
  EXPECT_NE(csv.process.out.find(",sm_90a,"), std::string::npos);
  EXPECT_NE(csv.process.out.find(",deadbeef,"), std::string::npos);
  auto jl = cli({"--workspace", ws.string(), "results", "--format", "jsonl"});
  const json row = json::parse(jl.process.out.substr(0, jl.process.out.find('\n')));
  EXPECT_EQ(row["nvcc"], "13.0.88");
  EXPECT_EQ(row["seed_policy"], "not recorded");
  auto table = cli({"--workspace", ws.string(), "results"});
  EXPECT_NE(table.process.out.find("sm_90a"), std::string::npos) << table.process.out;
  auto md = cli({"--workspace", ws.string(), "results", "--format", "md"});
  EXPECT_NE(md.process.out.find("| harness_version |"), std::string::npos) << md.process.out;
  auto one = cli({"--workspace", ws.string(), "results", "--id", "1"});
  EXPECT_NE(one.process.out.find("provenance: ptxbench 0.1.0 (commit deadbeef"), std::string::npos) << one.process.out;
  // A workspace with evaluations only has no runs to report.
  auto rep = cli({"report", ws.string()});
  EXPECT_EQ(rep.process.exit_code, 1);
  EXPECT_NE(rep.process.err.find("holds no runs"), std::string::npos) << rep.process.err;
  EXPECT_EQ(cli({"--workspace", ws.string(), "results", "--format", "html"}).process.exit_code, 1);
  std::filesystem::remove_all(ws);
}

}  // namespace
