// The workload registry (each problem's worker side by name) and the input check every workload shares.
#include "runner/workload.h"

#include "core/error.h"

namespace ptxbench {

std::map<std::string, RegisteredWorkload>& workload_registry() {
  static std::map<std::string, RegisteredWorkload> registry;
  return registry;
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  auto& r = workload_registry();
  auto it = r.find(name);
  if (it == r.end()) {
    std::string known;
    for (const auto& [k, v] : r) known += (known.empty() ? "" : ", ") + k;
    fail("no workload named '" + name + "' in this worker (known: " + known + ")");
  }
  return it->second.make();
}

void fail_if_inputs_modified(CheckOutcome& outcome, const std::string& changed) {
  if (changed.empty()) return;
  outcome.passed = false;
  outcome.summary = "the candidate modified its input " + changed + " (inputs must be left unchanged)";
  outcome.detail["modified_inputs"] = changed;
}

}  // namespace ptxbench
