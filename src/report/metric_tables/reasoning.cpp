// `reasoning` (metrics/reasoning_length.h): reasoning length per turn number and group, in tokens
// or characters. Text: the mean per turn, one row per group.
#include <algorithm>
#include <map>

#include "metrics/reasoning_length.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> reasoning_table(const MetricInput& in) {
  Table t = grouped_table(
      "reasoning", "Reasoning length by turn number",
      "Over the turns with a model reply; tokens where the provider reported them for every such turn of the group, "
      "else characters.",
      {{"turn", FieldType::integer, "", "turn number k"},
       {"replies", FieldType::integer, "turns", "turns with a reply numbered k"},
       {"unit", FieldType::string, "", "tokens or characters"},
       {"tokens_reported", FieldType::integer, "turns", "replies of the group with reasoning tokens reported"},
       {"mean", FieldType::number, "unit", ""},
       {"median", FieldType::number, "unit", ""},
       {"max", FieldType::number, "unit", ""}});
  for (const auto& g : in.groups) {
    const auto rl = metrics::reasoning_length(g.trajectories, in.max_turn);
    for (const auto& x : rl.by_turn)
      t.add(with_group(g, {ll(x.turn), ll(x.turns), rl.unit, ll(rl.tokens_reported), x.turns ? Value(x.mean) : Value(),
                           x.turns ? Value(x.median) : Value(), x.turns ? Value(x.max) : Value()}));
  }
  return t;
}

std::vector<Grid> reasoning_grids(const Report& r) {
  std::vector<Grid> out;
  const Table* t = r.table("reasoning");
  if (!t || t->rows.empty()) return out;
  Grid g;
  g.title = "Mean reasoning length by turn";
  g.header = {"group", "unit"};
  long long max_turn = 0;
  for (size_t i = 0; i < t->rows.size(); ++i) max_turn = std::max(max_turn, std::get<long long>(t->at(i, "turn")));
  for (long long k = 1; k <= max_turn; ++k) g.header.push_back("turn " + std::to_string(k));
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> cells;
  for (size_t i = 0; i < t->rows.size(); ++i) {
    const auto label = cell_text(*t, i, "group");
    if (!cells.count(label)) {
      groups.push_back(label);
      cells[label] = std::vector<std::string>(static_cast<size_t>(max_turn) + 2, "");
      cells[label][0] = label, cells[label][1] = cell_text(*t, i, "unit");
    }
    const auto& mean = t->at(i, "mean");
    cells[label][static_cast<size_t>(std::get<long long>(t->at(i, "turn"))) + 1] =
        std::holds_alternative<double>(mean) ? fixed(std::get<double>(mean), 1) : "";
  }
  for (const auto& label : groups) g.rows.push_back(cells[label]);
  g.note =
      "Tokens where the provider reported reasoning tokens for every reply of the group, else characters of reasoning "
      "text.";
  out.push_back(std::move(g));
  return out;
}

PTXBENCH_REGISTER_METRIC_TABLE(80, reasoning_table);
PTXBENCH_REGISTER_TEXT_SECTION(100, reasoning_grids);

}  // namespace
}  // namespace ptxbench::report
