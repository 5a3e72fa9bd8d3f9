// `transitions` (metrics/transitions.h): error-state pairs k -> k+1 per group, in the diagram's
// state order. Text: one transition matrix per group.
#include <algorithm>
#include <map>

#include "metrics/transitions.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> transitions_table(const MetricInput& in) {
  Table t = grouped_table("transitions", "Error-state transitions",
                          "Pairs of consecutive counted turns k -> k+1 of a trajectory, by state.",
                          {{"from", FieldType::string, "", "state at turn k"},
                           {"to", FieldType::string, "", "state at turn k+1"},
                           {"count", FieldType::integer, "pairs", ""},
                           {"share_of_from", FieldType::number, "fraction", "count / pairs leaving `from`"}});
  const auto& order = metrics::transition_state_order();
  auto rank = [&](const std::string& st) { return std::find(order.begin(), order.end(), st) - order.begin(); };
  for (const auto& g : in.groups) {
    const auto tx = metrics::transitions(g.trajectories);
    std::vector<std::pair<std::pair<std::string, std::string>, long long>> pairs(tx.counts.begin(), tx.counts.end());
    std::sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
      return std::make_pair(rank(a.first.first), rank(a.first.second)) <
             std::make_pair(rank(b.first.first), rank(b.first.second));
    });
    for (const auto& [ft, n] : pairs)
      t.add(with_group(
          g, {ft.first, ft.second, ll(n), static_cast<double>(n) / static_cast<double>(tx.from_totals.at(ft.first))}));
  }
  return t;
}

std::vector<Grid> transition_grids(const Report& r) {
  std::vector<Grid> out;
  const Table* t = r.table("transitions");
  if (!t || t->rows.empty()) return out;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<size_t>> rows;
  for (size_t i = 0; i < t->rows.size(); ++i) {
    const auto label = cell_text(*t, i, "group");
    if (!rows.count(label)) groups.push_back(label);
    rows[label].push_back(i);
  }
  for (const auto& label : groups) {
    std::vector<std::string> states;  // rows are in the diagram's order already
    auto add = [&](const std::string& s) {
      if (std::find(states.begin(), states.end(), s) == states.end()) states.push_back(s);
    };
    for (size_t i : rows[label]) add(cell_text(*t, i, "from"));
    for (size_t i : rows[label]) add(cell_text(*t, i, "to"));
    Grid g;
    g.title = "Transitions k -> k+1, " + label;
    g.header = {"from \\ to"};
    for (const auto& s : states) g.header.push_back(s);
    for (const auto& from : states) {
      std::vector<std::string> row = {from};
      bool any = false;
      for (const auto& to : states) {
        std::string cell;
        for (size_t i : rows[label])
          if (cell_text(*t, i, "from") == from && cell_text(*t, i, "to") == to)
            cell = cell_text(*t, i, "count"), any = true;
        row.push_back(cell);
      }
      if (any) g.rows.push_back(std::move(row));
    }
    out.push_back(std::move(g));
  }
  return out;
}

PTXBENCH_REGISTER_METRIC_TABLE(70, transitions_table);
PTXBENCH_REGISTER_TEXT_SECTION(90, transition_grids);

}  // namespace
}  // namespace ptxbench::report
