// The library's clean timings kept in the workspace (docs/library-timing-cache.md) on a real GPU:
// the first evaluation of a reference times the library alone in full and stores it; a second
// evaluation in the same workspace re-validates the stored median with a short check instead, and
// its speedups stay those of the first. (CI covers the same path with a scripted worker:
// tests/e2e/test_library_timing_cache.cpp.)
#include <gtest/gtest.h>

#include "support/cli.h"
#include "support/gpu.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

class LibraryTimingCacheOnGpu : public OnGpu {};

json alone_events(const json& record) {
  const json t = stage_of(record, "timing");
  return t.is_null() ? json::array() : t["detail"].value("baseline_alone", json::array());
}

TEST_F(LibraryTimingCacheOnGpu, ASecondEvaluationInTheWorkspaceIsRevalidatedByAShortCheck) {
  for (const char* problem : {"gemm", "mha_bwd"}) {
    SCOPED_TRACE(problem);
    const auto ws = fresh_workspace(std::string("gpu-library-timing-cache-") + problem);
    const std::vector<std::string> args{"eval",
                                        "--json",
                                        "--no-sanitize",
                                        "--no-probe",
                                        "-p",
                                        problem,
                                        file(std::string("problems/") + problem + "/reference/wgmma_tma.cu")};
    const auto first = run_cli(ws, args, std::chrono::seconds(900)).output;
    const auto second = run_cli(ws, args, std::chrono::seconds(900)).output;
    ASSERT_TRUE(first.is_object() && second.is_object());
    ASSERT_EQ(first["verdict"], "correct") << first.value("reason", "");
    ASSERT_EQ(second["verdict"], "correct") << second.value("reason", "");
    const json stored = first["environment"].value("library_timing_cache", json::object());
    const json events1 = alone_events(first), events2 = alone_events(second);
    ASSERT_FALSE(events1.empty()) << first.dump().substr(0, 2000);
    for (const auto& e : events1) EXPECT_EQ(e.value("library_cache", ""), "miss") << e.dump();
    EXPECT_EQ(stored.value("stored", -1), static_cast<int>(events1.size())) << stored.dump();
    // A check may fail on noise (then the shape is timed in full and replaced): most must pass.
    int validated = 0;
    double check_s = 0, full_s = 0;
    for (const auto& e : events2) {
      validated += e.value("library_cache", "") == "hit-validated";
      check_s += e.value("seconds", 0.0);
      std::cout << problem << " " << e.value("shape", json()).dump() << ": " << e.value("library_cache", "") << " "
                << e.value("check", json::object()).dump() << "\n";
    }
    for (const auto& e : events1) full_s += e.value("seconds", 0.0);
    std::cout << problem << ": the library timed alone in " << full_s << " s, re-validated in " << check_s << " s\n";
    EXPECT_GE(2 * validated, static_cast<int>(events2.size())) << events2.dump();
    EXPECT_GT(validated, 0);
    ASSERT_TRUE(first["speedup_geomean"].is_number() && second["speedup_geomean"].is_number());
    EXPECT_NEAR(second["speedup_geomean"].get<double>() / first["speedup_geomean"].get<double>(), 1.0, 0.03);
  }
}

}  // namespace
