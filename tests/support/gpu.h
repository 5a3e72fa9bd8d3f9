// GPU tests: skip, saying why, where the worker finds no usable GPU.
#pragma once
#include <gtest/gtest.h>

#include <string>

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
};

}  // namespace ptxbench::test
