// The names a problem.toml may use, known on any machine (no GPU, no worker needed): the worker's
// workloads and the baselines each implements (generated at configure time from the registrations
// in problems/*/workload.cu), and the bounds every spec is held to.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ptxbench {

// workload name -> the baselines it implements (e.g. "gemm" -> {"cublaslt"}).
using WorkloadNames = std::map<std::string, std::vector<std::string>>;
const WorkloadNames& known_workloads();

// Bounds for every dimension and list in a spec: a shape outside them is a spec error.
inline constexpr long long kMaxDim = 1LL << 20;  // a dimension's largest allowed value (and its default max)
inline constexpr int kMaxShapesPerList = 64;
inline constexpr int kMaxRandomShapes = 64;
inline constexpr int kMaxCorrectnessSeeds = 64;

}  // namespace ptxbench
