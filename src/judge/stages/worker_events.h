// The worker's report read into the record: a stage event as a stage result, a timing event as a
// shape's timing, and a run that ended without finishing its job as the failure it implies.
#pragma once
#include <string>

#include "core/json.h"
#include "core/record.h"
#include "judge/worker_client.h"

namespace ptxbench {

// A failed stage without its own verdict is `incorrect`.
StageResult from_worker_stage(const json& stage_event);
// The speedup is derived from the raw medians, never copied from the worker's report.
ShapeTiming to_shape_timing(const json& timing_event);
// The verdict a worker run that ended early implies, as the failure of `stage`. A result channel
// that failed verification, a call the sandbox stopped (SIGSYS) or the worker's report of one are
// the candidate's doing: forbidden.
StageResult abnormal_end(const std::string& stage, const WorkerRun& run);
// `s` with the run's wall time.
StageResult timed_by(StageResult s, const WorkerRun& run);

}  // namespace ptxbench
