// What makes two invocations "the same run" (so the second resumes the first): the model and its
// options, the arch, the knowledge setting, the problems, the context policy and the evaluation
// switches. The budget (trajectories, turns), --limit and the parallelism are not part of it: a
// run can be resumed with a larger budget.
#pragma once
#include <string>

#include "agent/run_config.h"

namespace ptxbench {

json run_identity(const RunConfig& c);
std::string run_identity_sha256(const RunConfig& c);
// `run_name` when given, else "<provider>-<model>-<arch>-<first 10 hex of the identity hash>",
// with the model part reduced to letters, digits, '.', '_' and '-'.
std::string run_id_for(const RunConfig& c);

}  // namespace ptxbench
