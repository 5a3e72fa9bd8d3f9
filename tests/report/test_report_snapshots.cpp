// Snapshots of the md, csv and json printers over the fixtures (tests/fixtures/report/expected/).
// Regenerate after an intended change: PTXBENCH_UPDATE_SNAPSHOTS=1 build/release/bin/report_tests
// --gtest_filter='Snapshot*' (scripts/update_report_snapshots.sh), then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "fixtures.h"
#include "report/metrics_report.h"
#include "report/printer.h"
#include "report/results_report.h"

using namespace ptxbench;

namespace {

std::filesystem::path expected(const std::string& name) { return test::report_fixture("expected") / name; }

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void check_snapshot(const std::string& name, const std::string& got) {
  const auto path = expected(name);
  if (const char* u = std::getenv("PTXBENCH_UPDATE_SNAPSHOTS"); u && std::string(u) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << got;
    std::cout << "updated " << path << "\n";
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: run scripts/update_report_snapshots.sh";
  const std::string want = read(path);
  if (got == want) return;
  // Name the first differing line.
  std::stringstream a(got), b(want);
  std::string la, lb;
  int line = 0;
  while (true) {
    ++line;
    const bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea || eb || la != lb) break;
  }
  FAIL() << name << " differs from " << path << " at line " << line << ":\n  got:      " << la << "\n  expected: " << lb
         << "\n(an intended change: scripts/update_report_snapshots.sh, then review the diff)";
}

report::Report fixture_report() {
  metrics::TurnSet set;
  for (const char* f : {"paper_12x8.jsonl", "ablation.jsonl", "edge_cases.jsonl"}) {
    auto part = test::load_fixture(f);
    for (auto& r : part.runs) r.source = f;  // not the checkout's absolute path
    set.append(std::move(part));
  }
  report::ReportSettings s;
  s.inputs = {"paper_12x8.jsonl", "ablation.jsonl", "edge_cases.jsonl"};
  s.generator = "ptxbench (snapshot)";
  s.fastp_step = 0.5;
  s.turns_table = false;  // the per-turn table is checked through the CLI; it would triple the snapshots
  s.comparisons.push_back(metrics::parse_comparison("ablation-params..ablation-contract"));
  return report::build_metrics_report(set, s);
}

TEST(Snapshot, Markdown) { check_snapshot("report.md", report::print_report("md", fixture_report())); }
TEST(Snapshot, Csv) { check_snapshot("report.csv", report::print_report("csv", fixture_report())); }
TEST(Snapshot, Json) { check_snapshot("report.json", report::print_report("json", fixture_report())); }
TEST(Snapshot, Terminal) { check_snapshot("report.txt", report::print_report("table", fixture_report())); }

TEST(Printers, EveryFormatPrintsTheSameFieldsAndValues) {
  const auto r = fixture_report();
  const json j = json::parse(report::print_report("json", r));
  ASSERT_EQ(j["tables"].size(), r.tables.size());
  // CSV: each table's header is its fields; each row's cells are the JSON values' text.
  std::stringstream csv(report::print_report("csv", r));
  for (size_t ti = 0; ti < r.tables.size(); ++ti) {
    const auto& t = r.tables[ti];
    std::string header;
    std::getline(csv, header);
    std::string want = "table";
    for (const auto& f : t.fields) want += "," + f.name;
    ASSERT_EQ(header, want) << t.name;
    EXPECT_EQ(j["tables"][ti]["rows"].size(), t.rows.size()) << t.name;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      std::string line;
      std::getline(csv, line);
      ASSERT_EQ(line.rfind(t.name + ",", 0), 0u) << line;
    }
    std::string blank;
    std::getline(csv, blank);
  }
  // JSONL: one line per row of every table.
  std::stringstream jl(report::print_report("jsonl", r));
  size_t lines = 0, rows = 0;
  for (std::string l; std::getline(jl, l);) ++lines;
  for (const auto& t : r.tables) rows += t.rows.size();
  EXPECT_EQ(lines, rows);
  // Markdown and terminal print the paper's cells from the same rows.
  EXPECT_NE(report::print_report("md", r).find("| 33.3 / 60.4 / 56.2 (33.3 / 62.5 / 62.5) |"), std::string::npos);
  EXPECT_NE(report::print_report("table", r).find("33.3 / 60.4 / 56.2 (33.3 / 62.5 / 62.5)"), std::string::npos);
  EXPECT_NE(report::print_report("md", r).find("0.770 / 0.968 / 0.976 (0.770 / 1.020 / 1.500)"), std::string::npos);
  EXPECT_THROW(report::select_tables(r, {"nope"}), InputError);
  EXPECT_EQ(report::select_tables(r, {"correctness"}).tables.size(), 1u);
}

TEST(Printers, CsvQuotesCellsThatNeedIt) {
  report::Report r;
  report::Table t;
  t.name = "x";
  t.fields = {{"a", report::FieldType::string, "", ""}, {"b", report::FieldType::number, "", ""}};
  t.add({std::string("params,ptx \"quoted\""), 0.1});
  t.add({report::Value(), report::Value()});
  r.add(t);
  EXPECT_EQ(report::print_report("csv", r), "table,a,b\nx,\"params,ptx \"\"quoted\"\"\",0.1\nx,,\n");
  EXPECT_THROW(t.add({std::string("only one")}), Error);
  EXPECT_THROW(t.add({1.0, 2.0}), Error);  // a number where a string belongs
}

TEST(ResultsReport, EveryRecordCarriesItsArchAndProvenance) {
  EvaluationRecord a;
  a.problem = "gemm", a.arch = "sm_90a", a.gpu = "NVIDIA H200", a.verdict = Verdict::correct, a.speedup_geomean = 0.91;
  a.target_executed = true;
  a.environment = {{"harness", {{"version", "0.1.0"}, {"commit", "abc123"}, {"dirty", false}}},
                   {"nvcc_version", "13.0.88"},
                   {"seed_policy", "fresh random seed per candidate"},
                   {"gpu", {{"gpu", "NVIDIA H200"}, {"cuda_driver", 13000}}},
                   {"gpu_state_at_start", {{"driver", "580.95.05"}}}};
  EvaluationRecord b;  // recorded before provenance was: says so
  b.problem = "mha_fwd", b.arch = "sm_100a", b.verdict = Verdict::not_run;
  const auto r = report::build_results_report({{7, a}, {3, b}}, "ws/ptxbench.db");
  const auto& t = *r.table("evaluations");
  EXPECT_EQ(report::value_text(t.at(0, "arch")), "sm_90a");
  EXPECT_EQ(report::value_text(t.at(0, "harness_commit")), "abc123");
  EXPECT_EQ(report::value_text(t.at(0, "nvcc")), "13.0.88");
  EXPECT_EQ(report::value_text(t.at(0, "driver")), "580.95.05 (CUDA 13.0)");
  EXPECT_EQ(report::value_text(t.at(0, "seed_policy")), "fresh random seed per candidate");
  EXPECT_EQ(report::value_text(t.at(1, "arch")), "sm_100a");
  EXPECT_EQ(report::value_text(t.at(1, "harness_version")), "not recorded");
  EXPECT_EQ(report::value_text(t.at(1, "target_executed")), "");
  const std::string md = report::print_report("md", r);
  EXPECT_NE(md.find("| 7 |"), std::string::npos) << md;
  EXPECT_NE(md.find("580.95.05 (CUDA 13.0)"), std::string::npos) << md;
  const json j = json::parse(report::print_report("jsonl", r).substr(0, report::print_report("jsonl", r).find('\n')));
  EXPECT_EQ(j["table"], "evaluations");
  EXPECT_EQ(j["id"], 7);
  EXPECT_EQ(j["harness_version"], "0.1.0");
}

}  // namespace
