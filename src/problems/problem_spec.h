// A problem is data: problems/<name>/problem.toml plus prompt.md, interface.h and reference/.
// This is its loaded, validated form.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

using Shape = std::map<std::string, long long>;

// Every dim is bounded: without a [constraints.<dim>] entry it is [1, 2^20] (kMaxDim).
struct DimConstraint {
  long long multiple_of = 1;
  long long min = 1;
  long long max = 1LL << 20;
  std::vector<long long> one_of;  // empty: any value passing the rules above
};

// The work the target instructions must do for `target_executed` (the strict flag), by allowlist
// (issue 45), measured on the timed calls' hardware counters (judge/timed_work.h) and agreed with by
// the checked calls' SASS counts (judge/target_counts.h). 0 = no requirement. Justified in
// docs/judge.md, "Verdicts".
struct TargetWork {
  double tensor_flop_share = 0;        // the target family does at least this share of the problem's FLOPs
  double max_target_flop_ratio = 1.1;  // target FLOPs past this multiple of the problem's are waste: they
                                       // do not raise the share (a backward's recompute: stated per problem)
  double max_other_math_share = 0.1;   // everything else (older MMAs, SIMT pipes, every other instruction,
                                       // each at the most FLOPs it could do) at most this share
  double tma_load_share = 0;           // the TMA brings at least this share of the global bytes read
  double tma_byte_share = 0;           // checked calls: TMA bytes (each copy credited with its kernel's
                                       // smallest known box, clipped to the tensor) per operand byte
};

struct ArchTargets {
  std::string arch;                              // sm_90a, sm_100a
  std::vector<std::vector<std::string>> groups;  // SASS opcode globs; every group must execute
  std::vector<std::string> ptx;                  // PTX instruction prefixes looked for statically
  TargetWork work;                               // [targets.<arch>.work]
};

struct Tolerance {
  double rtol = 0.02;        // per element, relative to |reference|
  double atol = 0.02;        // per element, relative to the reference's RMS
  double max_rel_l2 = 0.01;  // ||out - ref|| / ||ref||
};

struct ProblemSpec {
  std::filesystem::path dir;
  std::string name;
  std::string title;
  std::string entry;                       // the extern "C" symbol
  std::string workload;                    // the worker's workload that implements inputs, reference and checks
  json workload_options = json::object();  // [workload_options]: passed to the workload (e.g. causal)
  std::string baseline;                    // e.g. cublaslt
  std::string flops;                       // expression over the dims, e.g. 2*M*N*K
  std::string
      operand_bytes;  // the bytes of the inputs the problem's matrix products read, e.g. 2*(M*K + N*K); "" = none
  std::vector<std::string> dims;
  std::map<std::string, DimConstraint> constraints;
  std::map<std::string, Tolerance> tolerances;  // per output name
  std::vector<ArchTargets> targets;
  std::vector<Shape> benchmark_shapes;  // listed in the prompt; timed
  std::vector<Shape> hidden_shapes;     // correctness only; never shown to the model
  int random_hidden_shapes = 0;         // drawn per evaluation from the constraints
  Shape random_shape_max;               // upper bound per dim for those draws
  Shape sanitize_shape;
  Shape probe_shape;
  int correctness_seeds = 3;

  std::filesystem::path interface_header() const { return dir / "interface.h"; }
  std::filesystem::path prompt_file() const { return dir / "prompt.md"; }
  const ArchTargets* targets_for(const std::string& arch) const;
  // Empty when the shape satisfies every constraint; else what is wrong.
  std::string check_shape(const Shape& s) const;
  double flop_count(const Shape& s) const;
  double operand_byte_count(const Shape& s) const;  // 0 when the spec names no operand_bytes
  json to_json() const;
};

// Loads and validates problems/<name>/problem.toml strictly: unknown keys, workload and baseline
// names the worker does not know (problems/known_names.h), unbounded or out-of-range dims and
// counts are errors. Throws InputError naming the file, the line and the key path.
ProblemSpec load_problem(const std::filesystem::path& dir);
// The same against another list of workloads (tests).
ProblemSpec load_problem(const std::filesystem::path& dir,
                         const std::map<std::string, std::vector<std::string>>& workloads);

std::string shape_to_string(const Shape& s, const std::vector<std::string>& dims);

}  // namespace ptxbench
