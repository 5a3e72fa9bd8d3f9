// Executed SASS opcode counts during a real candidate call, read by Nsight Compute
// (`sass__inst_executed_per_opcode`) over the kernels inside the worker's NVTX range.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ptxbench {

inline constexpr const char* kCandidateNvtxRange = "ptxbench_candidate";

struct NcuKernel {
  std::string name;
  std::map<std::string, long long> opcodes;
};

struct NcuReport {
  std::vector<NcuKernel> kernels;
  std::map<std::string, long long> total;  // summed over kernels
};

std::filesystem::path find_ncu();  // $PTXBENCH_NCU, PATH, /usr/local/cuda/bin/ncu; empty if none

// The ncu arguments placed before the worker's own command line.
std::vector<std::string> ncu_command_prefix(const std::filesystem::path& ncu);

// Parses ncu's --csv --print-metric-instances details output. Throws Error if no metric row exists.
NcuReport parse_ncu_csv(const std::string& csv);

// "373,683 (UIADD3: 64,780; HGMMA: 12,288)" -> {UIADD3: 64780, HGMMA: 12288}
std::map<std::string, long long> parse_opcode_instances(const std::string& value);

}  // namespace ptxbench
