// A stage unit and the loop that runs a list of them (the list is the pipeline's description,
// pipeline.cpp). A unit runs one stage and writes its result into the record; it may stop the
// pipeline, and every later unit's stage not written yet is then recorded as skipped, with the reason.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/record.h"
#include "judge/stages/stage_results.h"

namespace ptxbench {

// Empty: go on. Else why the stages after this one cannot run.
using StageStop = std::optional<std::string>;

template <class Run>
struct Stage {
  // The record stage this unit owns. Empty for a unit that owns none: the smoke call and the worker
  // runs, whose failures are written under a stage that a later unit owns.
  std::string_view name;
  StageStop (*run)(Run&);
  // Listed as skipped when the phase does not start at all (no usable GPU); false for a stage
  // that is recorded only once a worker ran (the GPU activity audit).
  bool listed_when_not_started = true;
};

// True when no unit stopped.
template <class Run>
bool run_stages(std::span<const Stage<Run>> stages, Run& run, EvaluationRecord& r) {
  StageStop stop;
  for (const Stage<Run>& s : stages) {
    if (!stop) stop = s.run(run);
    else if (!s.name.empty() && !r.stage(std::string(s.name))) r.add_stage(skipped_stage(s.name, *stop));
  }
  return !stop;
}

// The phase did not start: every stage it lists then, recorded as skipped with `why`.
template <class Run>
void skip_stages(std::span<const Stage<Run>> stages, EvaluationRecord& r, const std::string& why) {
  for (const Stage<Run>& s : stages)
    if (!s.name.empty() && s.listed_when_not_started) r.add_stage(skipped_stage(s.name, why));
}

}  // namespace ptxbench
