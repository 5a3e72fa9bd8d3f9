#include <gtest/gtest.h>

#include "core/error.h"
#include "probes/ncu_probe.h"
#include "probes/sanitizer_probe.h"

using namespace ptxbench;

// The shape of ncu 2025.3's CSV (seen on the H200): thousands separators inside the value.
static const char* kNcu =
    "==PROF== Connected to process 547\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"thread "
    "Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\","
    "\"Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg\",\"Kernel "
    "Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"547\",\"python3.12\",\"127.0.0.1\",\"547  \"\"<default domain>:ptxbench_candidate:none\"\" "
    "\",\"\",\"gemm_kernel\",\"1\",\"7\","
    "\"(384, 1, 1)\",\"(8, 12, 1)\",\"0\",\"9.0\",\"Command line profiler "
    "metrics\",\"sass__inst_executed_per_opcode\",\"\","
    "\"373,683 (UIADD3: 64,780; HGMMA: 12,288; UTMALDG: 1,536; EXIT: 1,509)\"\n"
    "\"1\",\"547\",\"python3.12\",\"127.0.0.1\",\"\",\"\",\"epilogue(float*)\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 1, "
    "1)\",\"0\",\"9.0\","
    "\"Command line profiler metrics\",\"sass__inst_executed_per_opcode\",\"\",\"448 (STG: 32; EXIT: 64)\"\n";

TEST(NcuParser, SumsOpcodesOverKernels) {
  auto r = parse_ncu_csv(kNcu);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "gemm_kernel");
  EXPECT_EQ(r.total.at("HGMMA"), 12288);
  EXPECT_EQ(r.total.at("UTMALDG"), 1536);
  EXPECT_EQ(r.total.at("EXIT"), 1573);
  EXPECT_EQ(r.total.at("UIADD3"), 64780);
}

TEST(NcuParser, NoRowsOrNoHeaderIsAnError) {
  EXPECT_THROW(parse_ncu_csv("==PROF== nothing profiled\n"), Error);
  std::string header_only(kNcu);
  header_only = header_only.substr(0, header_only.find("\n\"0\"") + 1);
  EXPECT_THROW(parse_ncu_csv(header_only), Error);
}

TEST(NcuParser, CommandNeverControlsClocksAndFiltersToTheCandidateRange) {
  auto cmd = ncu_command_prefix("/usr/local/cuda/bin/ncu");
  auto has = [&](const std::string& a, const std::string& b) {
    for (size_t i = 0; i + 1 < cmd.size(); ++i)
      if (cmd[i] == a && cmd[i + 1] == b) return true;
    return false;
  };
  EXPECT_TRUE(has("--clock-control", "none"));
  EXPECT_TRUE(has("--nvtx-include", std::string(kCandidateNvtxRange) + "/"));
  EXPECT_TRUE(has("--metrics", "sass__inst_executed_per_opcode"));
}

TEST(SanitizerParser, MemcheckErrorsAndCleanRuns) {
  auto f = parse_sanitizer_output(
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 2 bytes\n"
      "=========     at oob_kernel+0x90\n"
      "========= ERROR SUMMARY: 3 errors\n");
  EXPECT_TRUE(f.summary_found);
  EXPECT_EQ(f.errors, 3);
  EXPECT_NE(f.report.find("Invalid __global__ write"), std::string::npos);
  auto clean = parse_sanitizer_output("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(clean.summary_found);
  EXPECT_EQ(clean.errors, 0);
  EXPECT_FALSE(parse_sanitizer_output("garbage").summary_found);
}

TEST(SanitizerParser, RacecheckSummary) {
  auto f = parse_sanitizer_output("========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)\n");
  EXPECT_TRUE(f.summary_found);
  EXPECT_EQ(f.errors, 1);
  EXPECT_EQ(f.warnings, 1);
}
