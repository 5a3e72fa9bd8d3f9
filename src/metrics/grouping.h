// Trajectories (the turns of one (run, problem, trajectory), in turn order) and the groups the
// metrics are computed over (by problem, model, arch, knowledge setting, run, split).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "metrics/turn_model.h"

namespace ptxbench::metrics {

struct Trajectory {
  std::string run, problem;
  int id = 0;
  const RunInfo* info = nullptr;
  std::vector<const TurnRow*> turns;  // sorted by turn number, no duplicates
  bool finished = true;
  // The stored turn numbered `k` (1-based), or nullptr when none is stored.
  const TurnRow* at(int k) const;
};

// Throws InputError on a turn of an unknown run, a turn number < 1, or a duplicate turn.
std::vector<Trajectory> index_trajectories(const TurnSet& set);

enum class Dim { arch, language, model, knowledge, run, split, problem };
std::string_view to_string(Dim d);

struct GroupBy {
  std::vector<Dim> dims;  // always kept in the canonical order arch, language, model, knowledge, run, split, problem
  bool has(Dim d) const;
};
// "arch,language,model,knowledge,split,problem" (the default); InputError naming the known dimensions.
GroupBy parse_group_by(const std::string& text);

inline constexpr const char* kPooled = "*";  // the value of a dimension the groups do not split on

struct Group {
  std::map<Dim, std::string> key;  // every Dim; kPooled where not grouped on
  std::string label;               // "sm_90a / model / knowledge / gemm" (grouped dimensions only)
  std::string gpu;                 // the GPUs the group's turns ran on, joined with " + "
  std::vector<const Trajectory*> trajectories;
  std::string value(Dim d) const { return key.at(d); }
};

// Groups in a stable order: by arch, model, knowledge, run, split (as strings), then problem in
// the order the runs list their problems.
std::vector<Group> group_trajectories(const std::vector<Trajectory>& trajectories, const TurnSet& set,
                                      const GroupBy& by);

// The dimension's value for one trajectory.
std::string dim_value(const Trajectory& t, Dim d);

// Problems in report order: as the runs list them, then any others as the turns name them.
std::vector<std::string> problem_order(const TurnSet& set);

}  // namespace ptxbench::metrics
