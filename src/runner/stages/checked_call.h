// What the worker's stages share: one checked call of the candidate (fresh inputs, poison, the
// call, the inputs generated again, the reference, the full check) and where its time went.
// Used by the correctness and target_run stages.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "runner/integrity/observations.h"
#include "runner/worker_context.h"

namespace ptxbench {

// Where a checked call's time went: the harness's inputs and poison, the candidate's call, and
// the harness's regenerated inputs, reference (computed, or written back from the service's pool)
// and full check.
struct CheckedCallSeconds {
  double inputs = 0, call = 0, reference_and_check = 0;
  double reference = -1;  // a pooled reference's hand-over alone; a computed one runs on the stream with the check
  json to_json() const {
    json j = {{"inputs", inputs}, {"call", call}, {"reference_and_check", reference_and_check}};
    if (reference >= 0) j["pooled_reference"] = reference;
    return j;
  }
};

// One checked call: fresh inputs, poison, the call, inputs generated again, reference, full check.
// `pooled` (shape, seed): the inputs of a set in the service's reference pool, whose reference is
// asked for only now that the call returned; otherwise a fresh seed, and the reference computed here.
CheckOutcome checked_call(WorkerContext& ctx, const json& tol, const std::string& what, double flops,
                          const std::string& stage, const std::string& label, bool counted,
                          std::vector<ExecutedInstruction>* counts, CheckedCallSeconds* seconds = nullptr,
                          std::optional<std::pair<std::string, uint64_t>> pooled = std::nullopt);

}  // namespace ptxbench
