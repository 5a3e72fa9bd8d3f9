// `ptxbench rescore RUN`: judges a run's stored candidates again (e.g. a run recorded on a CPU
// machine, re-judged on a GPU host) without calling the model. Each distinct (problem, candidate)
// is judged once, all of them pipelined through the CandidateService; every turn with that
// candidate gets the new evaluation (a turn_evaluations row of kind "rescore"). The feedback the
// model saw is kept as it was. A candidate whose new judgment is infra_error keeps its old one.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "agent/run_progress.h"
#include "service/candidate_service.h"
#include "store/run_store.h"

namespace ptxbench {

struct RescoreOutcome {
  int candidates = 0;                  // distinct candidates judged
  int turns = 0;                       // turns given a new evaluation
  int pending_skipped = 0;             // turns still "judging" (resume the run to judge them)
  int infra_errors = 0;                // candidates whose new judgment failed in the harness (old judgment kept)
  std::map<std::string, int> changed;  // "not_run -> correct" -> turns
  std::vector<std::string> errors;     // store failures, harness faults (each also printed)
};

RescoreOutcome rescore_run(RunStore& store, const std::string& run_id, const std::vector<ProblemSpec>& problems,
                           CandidateService& service, RunProgress& progress);

}  // namespace ptxbench
