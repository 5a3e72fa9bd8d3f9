// GPU tests: skip, saying why, where the worker finds no usable GPU.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/cli.h"

namespace ptxbench::test {

// "" when `ptxbench-worker --info` finds a GPU, else why not (asked once per test binary).
inline const std::string& gpu_missing_reason() {
  static const std::string reason = [] {
    auto r = run_process({(bin_dir() / "ptxbench-worker").string(), "--info"});
    if (r.ok()) return std::string();
    return "no CUDA GPU on this machine (ptxbench-worker --info: " + r.describe() +
           "); run scripts/gpu_tests.sh on a GPU host";
  }();
  return reason;
}

// Base of the CLI-driven GPU tests: skipped without a GPU.
class OnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto& why = gpu_missing_reason(); !why.empty()) GTEST_SKIP() << why;
  }
  static std::string file(const std::string& rel) { return (source_dir() / rel).string(); }
  // `ptxbench eval --json --no-sanitize -p PROBLEM [extra] FILE` in workspace `ws` (sanitizers are
  // beside the point of the integrity and target-truth candidates, and cost minutes under
  // racecheck); the record, or null with the process's output reported as a failure.
  static json eval_candidate(const std::filesystem::path& ws, const std::string& problem, const std::string& rel,
                             std::vector<std::string> extra = {}) {
    std::vector<std::string> a{"eval", "--json", "--no-sanitize", "-p", problem};
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back(file(rel));
    auto r = run_cli(ws, a);
    EXPECT_FALSE(r.output.is_null()) << r.process.describe() << "\n" << r.process.out << "\n" << r.process.err;
    return r.output;
  }
};

}  // namespace ptxbench::test
