// Records how a candidate was judged: the tools found, the harness, the compiler's version, the seed policy.
#include "judge/stages/provenance.h"

#include <string>

#include "compile/nvcc_driver.h"
#include "compile/static_checks.h"
#include "core/build_info.h"
#include "judge/toolchain_info.h"
#include "probes/ncu_probe.h"
#include "probes/sanitizer_probe.h"

namespace ptxbench {

void record_provenance(EvaluationRecord& r, const EvalOptions& o) {
  r.environment["tools"] = {{"nvcc", find_nvcc().string()},
                            {"cuobjdump", find_cuobjdump().string()},
                            {"ncu", find_ncu().string()},
                            {"compute_sanitizer", find_compute_sanitizer().string()}};
  static const std::string nvcc = nvcc_version();
  r.environment["harness"] = harness_info();
  r.environment["nvcc_version"] = nvcc;
  r.environment["seed_policy"] = o.seed ? "fixed seed " + std::to_string(*o.seed) + " (--seed, for debugging)"
                                        : "fresh random seed per candidate (std::random_device), never shown to it";
}

}  // namespace ptxbench
