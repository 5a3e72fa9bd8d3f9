// The library's clean timings kept in the workspace across evaluations (docs/library-timing-cache.md),
// through `ptxbench eval` with a stand-in worker whose library timings are scripted (fake_worker.py
// libcache, libcache.json beside it): a second evaluation of the same shapes hits and re-validates
// with a short check; a drifted check re-times and replaces the row; another GPU, driver, clock state
// or library version is a miss; --no-cache neither reads nor writes; a corrupt row is ignored with
// its reason in the record. The check's rule itself is unit-tested (test_library_timing_check.cpp).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <functional>
#include <map>
#include <vector>

#include "support/cli.h"
#include "support/stand_in_worker.h"
#include "support/temp_dir.h"

namespace ptxbench::test {
namespace {

namespace fs = std::filesystem;

class LibraryTimingCache : public ::testing::Test {
 protected:
  void SetUp() override {
    worker_ = stand_in_worker(dir_.path() / "worker", "libcache");
    ws_ = dir_.path() / "ws";
    fs::create_directories(ws_);
    script_ = {{"env",
                {{"gpu_uuid", "GPU-11111111-2222-3333-4444-555555555555"},
                 {"driver", "580.65.06"},
                 {"clocks", {{"max_sm_mhz", 1980}, {"power_limit_w", 700}, {"persistence_mode", true}}}}},
               {"library",
                {{"library", "cuBLASLt"}, {"version", 130000}, {"plan", {{"algorithm", "heuristic result 0 of 8"}}}}},
               {"alone_ms", 0.9},
               {"check_ms", 0.9},
               {"interleaved_ms", 1.0},
               {"candidate_ms", 0.5},
               {"full_samples", 20},
               {"median_error", 0.001}};
  }
  // One evaluation of the gemm reference with the script as it stands.
  json eval(const std::vector<std::string>& extra = {}) {
    std::ofstream(worker_.parent_path() / "libcache.json") << script_.dump();
    std::vector<std::string> args{"eval", "--json", "--no-sanitize", "--no-probe",
                                  "-p",   "gemm",   "--worker",      worker_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back((source_dir() / "problems/gemm/reference/naive.cu").string());
    const auto r = run_cli(ws_, args, std::chrono::seconds(600));
    EXPECT_TRUE(r.output.is_object()) << r.process.out << r.process.err;
    if (!r.output.is_object()) return json::object();
    EXPECT_EQ(r.output["verdict"], "correct") << r.output.value("reason", "");
    return r.output;
  }
  static json alone_events(const json& record) {
    const json t = stage_of(record, "timing");
    return t.is_null() ? json::array() : t["detail"]["baseline_alone"];
  }
  // Every timed shape's outcome is `outcome`; the summary counts them.
  static void expect_all(const json& record, const std::string& outcome) {
    const json events = alone_events(record);
    ASSERT_FALSE(events.empty()) << record.dump(2).substr(0, 3000);
    for (const auto& e : events) EXPECT_EQ(e.value("library_cache", ""), outcome) << e.dump();
    const json s = record["environment"]["library_timing_cache"];
    const std::string counter = outcome == "hit-validated" ? "hit_validated"
                                : outcome == "miss"        ? "miss"
                                                           : "revalidation_failed";
    EXPECT_EQ(s.value(counter, -1), static_cast<int>(events.size())) << s.dump();
  }
  static void expect_speedup(const json& record, double speedup, const std::string& source) {
    ASSERT_FALSE(record["timing"].empty()) << record.dump(2).substr(0, 2000);
    for (const auto& t : record["timing"]) {
      EXPECT_NEAR(t["speedup"].get<double>(), speedup, 1e-9) << t.dump();
      EXPECT_EQ(t["baseline_source"], source) << t.dump();
    }
    EXPECT_NEAR(record["speedup_geomean"].get<double>(), speedup, 1e-9);
  }
  void sql(const std::string& statement) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((ws_ / "ptxbench.db").c_str(), &db), SQLITE_OK);
    char* msg = nullptr;
    const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &msg);
    const std::string error = msg ? msg : "";
    sqlite3_free(msg);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << error;
  }
  long long rows() {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2((ws_ / "ptxbench.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return -1;
    sqlite3_stmt* st = nullptr;
    long long n = -1;  // -1: no table
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM library_timings", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
  }

  TempDir dir_{"ptxbench-libcache"};
  fs::path worker_, ws_;
  json script_;
};

TEST_F(LibraryTimingCache, ASecondEvaluationHitsAndIsRevalidatedByAShortCheck) {
  const json first = eval();
  expect_all(first, "miss");
  const size_t shapes = alone_events(first).size();
  EXPECT_EQ(rows(), static_cast<long long>(shapes));
  for (const auto& e : alone_events(first)) EXPECT_EQ(e["samples"], 20) << e.dump();
  expect_speedup(first, 0.9 / 0.5, "alone");

  // The library would now time 0.95 in full; the short check sees 0.902 (+0.22%, within 0.5%).
  script_["alone_ms"] = 0.95;
  script_["check_ms"] = 0.902;
  const json second = eval();
  expect_all(second, "hit-validated");
  for (const auto& e : alone_events(second)) {
    EXPECT_EQ(e["check"]["samples"], 5) << e.dump();      // the default short check
    EXPECT_LT(e["check"]["samples"].get<int>(), 20);      // fewer library samples than a full timing
    EXPECT_DOUBLE_EQ(e["median_ms"].get<double>(), 0.9);  // the stored median, accepted
  }
  // The speedup comes from the accepted timing exactly as before: the stored 0.9, not the check's.
  expect_speedup(second, 0.9 / 0.5, "alone");
  EXPECT_EQ(rows(), static_cast<long long>(shapes));

  const json third = eval({"--library-check-samples", "3"});
  expect_all(third, "hit-validated");
  for (const auto& e : alone_events(third)) EXPECT_EQ(e["check"]["samples"], 3) << e.dump();
}

// A library whose first samples run faster than its steady state (cuDNN's backward on the H100:
// 4.60 ms in a 5-sample check, 4.79 ms timed in full): the full timing stores its first samples'
// median too, and the check is compared with that, like for like; the accepted timing is still the
// stored median.
TEST_F(LibraryTimingCache, AFastStartIsCheckedAgainstTheStoredTimingsFirstSamples) {
  // The stored rows' first samples' median and its sample count (the smallest and largest of each).
  auto leads = [&] {
    std::vector<double> v;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2((ws_ / "ptxbench.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return v;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT MIN(lead_median_ms), MAX(lead_median_ms), MIN(lead_samples), MAX(lead_samples) "
                           "FROM library_timings",
                           -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      for (int i = 0; i < 4; ++i) v.push_back(sqlite3_column_double(st, i));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
  };
  script_["lead_ms"] = 0.86;  // the first 5 of the full timing's samples
  expect_all(eval(), "miss");
  EXPECT_EQ(leads(), (std::vector<double>{0.86, 0.86, 5, 5}));

  // The check sees 0.862: 4.2% off the median, within the tolerance of the first samples' 0.86.
  script_["check_ms"] = 0.862;
  const json second = eval();
  expect_all(second, "hit-validated");
  for (const auto& e : alone_events(second)) {
    EXPECT_EQ(e["check"].value("compared_with", ""), "the stored timing's first samples") << e.dump();
    EXPECT_DOUBLE_EQ(e["median_ms"].get<double>(), 0.9);  // the stored median, accepted
  }
  expect_speedup(second, 0.9 / 0.5, "alone");

  // A check at the stored median is now 4.7% off the first samples: the GPU changed, timed again.
  // That check came first, so its own median is the new row's first samples (the full timing then
  // started on a GPU already at work), and the same check passes next time.
  script_["check_ms"] = 0.9;
  expect_all(eval(), "revalidation-failed");
  EXPECT_EQ(leads(), (std::vector<double>{0.9, 0.9, 5, 5}));
  expect_all(eval(), "hit-validated");
}

TEST_F(LibraryTimingCache, ADriftedCheckRetimesInFullAndReplacesTheRow) {
  expect_all(eval(), "miss");
  const long long stored = rows();
  // The check sees 0.95, 5.6% off the stored 0.9: timed in full (0.95) and stored in its place.
  script_["alone_ms"] = 0.95;
  script_["check_ms"] = 0.95;
  const json drifted = eval();
  expect_all(drifted, "revalidation-failed");
  for (const auto& e : alone_events(drifted)) {
    EXPECT_DOUBLE_EQ(e["median_ms"].get<double>(), 0.95) << e.dump();
    EXPECT_EQ(e["samples"], 20);
    EXPECT_NE(e.value("library_cache_reason", "").find("off"), std::string::npos) << e.dump();
  }
  expect_speedup(drifted, 0.95 / 0.5, "alone");
  EXPECT_EQ(rows(), stored);  // replaced, not added
  // The replacement is what the next check is held against.
  script_["alone_ms"] = 0.5;  // never measured now
  script_["check_ms"] = 0.951;
  const json next = eval();
  expect_all(next, "hit-validated");
  expect_speedup(next, 0.95 / 0.5, "alone");
}

TEST_F(LibraryTimingCache, AnotherGpuDriverClockStateOrLibraryVersionIsAMiss) {
  expect_all(eval(), "miss");
  const json base = script_;
  const std::vector<std::pair<std::string, std::function<void(json&)>>> changes{
      {"GPU UUID", [](json& s) { s["env"]["gpu_uuid"] = "GPU-99999999-2222-3333-4444-555555555555"; }},
      {"driver", [](json& s) { s["env"]["driver"] = "580.82.07"; }},
      {"clocks", [](json& s) { s["env"]["clocks"]["power_limit_w"] = 500; }},
      {"library version", [](json& s) { s["library"]["version"] = 130100; }},
      {"plan", [](json& s) { s["library"]["plan"]["algorithm"] = "heuristic result 1 of 8"; }},
  };
  for (const auto& [what, change] : changes) {
    script_ = base;
    change(script_);
    SCOPED_TRACE(what);
    const json r = eval();
    expect_all(r, "miss");
    // The GPU, driver and clocks are matched by the harness's lookup (nothing offered); the library
    // version and plan, which only the worker can read, by the worker.
    const bool by_worker = what == "library version" || what == "plan";
    for (const auto& e : alone_events(r)) {
      EXPECT_FALSE(e.contains("check")) << e.dump();
      EXPECT_NE(e.value("library_cache_reason", "").find(by_worker ? "differs" : "no stored timing"), std::string::npos)
          << e.dump();
    }
  }
  // The first key's rows are still there and still hit.
  script_ = base;
  expect_all(eval(), "hit-validated");
}

TEST_F(LibraryTimingCache, NoCacheNeitherReadsNorWrites) {
  const json off = eval({"--no-cache"});
  EXPECT_FALSE(off["environment"].contains("library_timing_cache")) << off["environment"].dump();
  for (const auto& e : alone_events(off)) EXPECT_FALSE(e.contains("library_cache")) << e.dump();
  EXPECT_LE(rows(), 0);        // nothing written (no table, or an empty one)
  expect_all(eval(), "miss");  // so the next evaluation finds nothing
  EXPECT_GT(rows(), 0);
  const json again = eval({"--no-cache"});  // rows there now, and not read
  for (const auto& e : alone_events(again)) {
    EXPECT_FALSE(e.contains("library_cache")) << e.dump();
    EXPECT_EQ(e["samples"], 20);
  }
}

TEST_F(LibraryTimingCache, ACorruptOrOldFormatRowIsIgnoredWithItsReasonAndReplaced) {
  expect_all(eval(), "miss");
  sql("UPDATE library_timings SET format = 0");
  const json r = eval();
  expect_all(r, "miss");
  const json ignored = r["environment"]["library_timing_cache"]["ignored"];
  ASSERT_FALSE(ignored.empty()) << r["environment"].dump(2);
  EXPECT_NE(ignored[0].get<std::string>().find("row format 0, this build reads format 1"), std::string::npos)
      << ignored.dump();
  sql("UPDATE library_timings SET median_ms = -1");
  const json r2 = eval();
  expect_all(r2, "miss");
  EXPECT_NE(r2["environment"]["library_timing_cache"]["ignored"].dump().find("no time"), std::string::npos);
  // Each miss stored a good row in the bad one's place.
  expect_all(eval(), "hit-validated");
}

// Only what the worker reported before its candidate loaded is kept: a "clean timing" candidate
// code writes on the channel afterwards (it would need the channel's key) never reaches the store.
TEST_F(LibraryTimingCache, ATimingReportedAfterTheCandidateLoadedIsNeverStored) {
  script_["forge_after_load"] = true;
  const json forged = eval();
  EXPECT_EQ(alone_events(forged).size(), 8u);  // the worker's four and the forged four
  const json s = forged["environment"]["library_timing_cache"];
  EXPECT_EQ(s.value("miss", -1), 4) << s.dump();
  EXPECT_EQ(s.value("stored", -1), 4) << s.dump();
  EXPECT_EQ(rows(), 4);
  script_["forge_after_load"] = false;
  const json next = eval();
  expect_all(next, "hit-validated");
  for (const auto& e : alone_events(next)) EXPECT_DOUBLE_EQ(e["median_ms"].get<double>(), 0.9) << e.dump();
}

// Through the service's engine (eval of several files): the timed worker of a split job gets the
// stored timings the in-memory cache does not hold (judge/stages/timed_worker_stage.cpp). The engine
// runs health probes where a GPU answers, and this machine has none: the harness is run from a copy
// of bin/ without the probe (what the engine then does: no probes).
TEST_F(LibraryTimingCache, ThroughTheEngineTheTimedWorkerIsOfferedTheStoredTimings) {
  const fs::path bin = dir_.path() / "bin";
  fs::create_directories(bin);
  for (const char* f : {"ptxbench", "ptxbench-sandbox-exec", "bwrap"})
    if (fs::exists(bin_dir() / f)) fs::copy_file(bin_dir() / f, bin / f);
  for (const char* f : {"a.cu", "b.cu"})
    fs::copy_file(source_dir() / "problems/gemm/reference/naive.cu", dir_.path() / f);
  auto eval_both = [&] {
    std::ofstream(worker_.parent_path() / "libcache.json") << script_.dump();
    ProcessOptions opt;
    opt.timeout = std::chrono::seconds(600);
    opt.working_dir = source_dir().string();
    const auto p = run_process({(bin / "ptxbench").string(), "--workspace", ws_.string(), "eval", "--json",
                                "--no-sanitize", "--no-probe", "-p", "gemm", "--lanes", "2", "--worker",
                                worker_.string(), (dir_.path() / "a.cu").string(), (dir_.path() / "b.cu").string()},
                               opt);
    const json out = parse_json_or_lines(p.out);
    EXPECT_TRUE(out.is_array() && out.size() == 2) << p.out << p.err;
    return out.is_array() ? out : json::array();
  };
  // Counts over both records; a shape the in-memory cache served has no outcome.
  auto totals = [](const json& records) {
    std::map<std::string, int> n;
    for (const auto& r : records) {
      EXPECT_EQ(r["verdict"], "correct") << r.value("reason", "");
      EXPECT_TRUE(stage_of(r, "timing")["detail"].value("exclusive_worker", false)) << "not the engine's timed worker";
      EXPECT_NEAR(r.value("speedup_geomean", 0.0), 0.9 / 0.5, 1e-9);
      for (const auto& e : alone_events(r)) ++n[e.value("library_cache", "in-memory")];
    }
    return n;
  };
  auto first = totals(eval_both());
  EXPECT_EQ(first["miss"], 4) << "the first timed worker times every shape";
  EXPECT_EQ(first["hit-validated"] + first["revalidation-failed"], 0);
  EXPECT_EQ(rows(), 4);
  script_["check_ms"] = 0.901;
  auto second = totals(eval_both());  // a new process: its in-memory cache is empty
  EXPECT_EQ(second["hit-validated"], 4) << "the first timed worker re-validates every stored shape";
  EXPECT_EQ(second["miss"] + second["revalidation-failed"], 0);
}

}  // namespace
}  // namespace ptxbench::test
