// `correctness_by_turn` (metrics/correctness_by_turn.h): correctness at each turn number, not
// cumulative. No text section: the HTML report plots it.
#include "metrics/correctness_by_turn.h"
#include "report/metric_table.h"

namespace ptxbench::report {
namespace {

std::optional<Table> correctness_by_turn_table(const MetricInput& in) {
  Table t = grouped_table("correctness_by_turn", "Correctness by turn number",
                          "Of the counted turns numbered k (not cumulative): correct and target-correct.",
                          {{"turn", FieldType::integer, "", "turn number k"},
                           {"turns", FieldType::integer, "turns", "counted turns numbered k"},
                           {"correct", FieldType::integer, "turns", ""},
                           {"correct_rate", FieldType::number, "fraction", ""},
                           {"correct_lo", FieldType::number, "fraction", "95% Wilson"},
                           {"correct_hi", FieldType::number, "fraction", "95% Wilson"},
                           {"target_correct", FieldType::integer, "turns", ""},
                           {"target_rate", FieldType::number, "fraction", ""},
                           {"target_lo", FieldType::number, "fraction", "95% Wilson"},
                           {"target_hi", FieldType::number, "fraction", "95% Wilson"}});
  for (const auto& g : in.groups)
    for (const auto& c : metrics::correctness_by_turn(g.trajectories, in.max_turn))
      t.add(with_group(
          g, {ll(c.turn), ll(c.correct.n), ll(c.correct.k), rate_value(c.correct), interval_lo(c.correct.wilson()),
              interval_hi(c.correct.wilson()), ll(c.target_correct.k), rate_value(c.target_correct),
              interval_lo(c.target_correct.wilson()), interval_hi(c.target_correct.wilson())}));
  return t;
}

PTXBENCH_REGISTER_METRIC_TABLE(60, correctness_by_turn_table);

}  // namespace
}  // namespace ptxbench::report
