// `turns`: one row per stored turn (left out with --no-turns: large runs have thousands). Text:
// its row count.
#include "metrics/transitions.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"
#include "store/turn_json.h"

namespace ptxbench::report {
namespace {

FieldType field_type(std::string_view storage) {
  if (storage == "real" || storage == "opt_real") return FieldType::number;
  if (storage == "integer" || storage == "opt_integer") return FieldType::integer;
  if (storage == "boolean" || storage == "opt_boolean") return FieldType::boolean;
  return FieldType::string;
}

Value value_of(const json& j) {
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<long long>();
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  return {};
}

std::optional<Table> turns_table(const MetricInput& in) {
  if (!in.settings.turns_table) return std::nullopt;
  std::vector<Field> fields = {
      {"trajectory_run", FieldType::string, "", "run"},
      {"trajectory_problem", FieldType::string, "", "problem"},
      {"trajectory", FieldType::integer, "", ""},
      {"turn", FieldType::integer, "", "1-based"},
      {"state", FieldType::string, "", "verdict or provider state"},
      {"transition_state", FieldType::string, "", "state with correct split by target execution"},
      {"counted", FieldType::boolean, "", "in the denominators"}};
  // Then the turn's fields a report shows, as declared (store/turn_row.h).
  for (const auto& f : kTurnFields)
    if (f.report) fields.push_back({f.member, field_type(f.storage), f.unit, f.note});
  Table t = grouped_table("turns", "Turns", "One row per stored turn.", fields);
  for (const auto& g : in.groups)
    for (const metrics::Trajectory* tr : g.trajectories)
      for (const metrics::TurnRow* turn : tr->turns) {
        std::vector<Value> row = {tr->run,
                                  tr->problem,
                                  ll(tr->id),
                                  ll(turn->turn),
                                  std::string(metrics::to_string(turn->state)),
                                  metrics::transition_state(*turn),
                                  metrics::is_counted(turn->state)};
        json stored = json::object();
        put_turn_fields(turn->stored, TurnKeys::report_columns, stored);
        for (const auto& [key, value] : stored.items()) row.push_back(value_of(value));
        t.add(with_group(g, std::move(row)));
      }
  return t;
}

std::vector<Grid> turns_note(const Report& r) { return row_count_note(r, "turns"); }

PTXBENCH_REGISTER_METRIC_TABLE(110, turns_table);
PTXBENCH_REGISTER_TEXT_SECTION(150, turns_note);

}  // namespace
}  // namespace ptxbench::report
