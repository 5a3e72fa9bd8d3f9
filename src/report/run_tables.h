// Tables of runs for the terminal, and the same numbers as JSON: the end-of-run summary (per
// problem: turns, states, best speedups), `runs list`, `runs show RUN` (per trajectory) and
// `runs show RUN TRAJ` (per turn). They read stored rows only.
#pragma once
#include <string>
#include <vector>

#include "store/run_store.h"

namespace ptxbench::report {

struct RunListEntry {
  RunInfo run;
  int turns_done = 0;
  int trajectories_complete = 0;
};

std::string format_run_summary(const RunInfo& run, const std::vector<TurnRow>& turns,
                               const std::vector<TrajectoryRow>& trajectories);
json run_summary_json(const RunInfo& run, const std::vector<TurnRow>& turns,
                      const std::vector<TrajectoryRow>& trajectories);

std::string format_run_list(const std::vector<RunListEntry>& runs);
json run_list_json(const std::vector<RunListEntry>& runs);

std::string format_run_detail(const RunInfo& run, const std::vector<TurnRow>& turns,
                              const std::vector<TrajectoryRow>& trajectories);
// One trajectory's turns; with_feedback adds the feedback text the model got after each turn.
std::string format_trajectory(const RunInfo& run, const std::string& problem, int trajectory,
                              const std::vector<TurnRow>& turns, bool with_feedback);
json trajectory_json(const RunInfo& run, const std::string& problem, int trajectory, const std::vector<TurnRow>& turns);

}  // namespace ptxbench::report
