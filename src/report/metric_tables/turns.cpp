// `turns`: one row per stored turn (left out with --no-turns: large runs have thousands). Text:
// its row count.
#include "metrics/transitions.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> turns_table(const MetricInput& in) {
  if (!in.settings.turns_table) return std::nullopt;
  Table t = grouped_table("turns", "Turns", "One row per stored turn.",
                          {{"trajectory_run", FieldType::string, "", "run"},
                           {"trajectory_problem", FieldType::string, "", "problem"},
                           {"trajectory", FieldType::integer, "", ""},
                           {"turn", FieldType::integer, "", "1-based"},
                           {"state", FieldType::string, "", "verdict or provider state"},
                           {"transition_state", FieldType::string, "", "state with correct split by target execution"},
                           {"counted", FieldType::boolean, "", "in the denominators"},
                           {"target_executed", FieldType::boolean, "", "null: unknown"},
                           {"speedup_geomean", FieldType::number, "x", ""},
                           {"reasoning_tokens", FieldType::integer, "tokens", "null: not reported"},
                           {"reasoning_chars", FieldType::integer, "characters", ""},
                           {"output_tokens", FieldType::integer, "tokens", "null: not reported"}});
  for (const auto& g : in.groups)
    for (const metrics::Trajectory* tr : g.trajectories)
      for (const metrics::TurnRow* turn : tr->turns)
        t.add(with_group(g, {tr->run, tr->problem, ll(tr->id), ll(turn->turn),
                             std::string(metrics::to_string(turn->state)), metrics::transition_state(*turn),
                             metrics::is_counted(turn->state), opt(turn->target_executed), opt(turn->speedup_geomean),
                             opt(turn->reasoning_tokens), ll(turn->reasoning_chars), opt(turn->output_tokens)}));
  return t;
}

std::vector<Grid> turns_note(const Report& r) { return row_count_note(r, "turns"); }

PTXBENCH_REGISTER_METRIC_TABLE(110, turns_table);
PTXBENCH_REGISTER_TEXT_SECTION(150, turns_note);

}  // namespace
}  // namespace ptxbench::report
