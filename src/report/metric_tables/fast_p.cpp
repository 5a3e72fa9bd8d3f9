// `fast_p` (metrics/fast_p.h): the fast_p and FastpInst. curves per group and budget over one p
// grid for the whole report. Text: both at a few thresholds, per budget.
#include <algorithm>
#include <cmath>
#include <map>

#include "metrics/fast_p.h"
#include "report/metric_table.h"
#include "report/paper_layout.h"

namespace ptxbench::report {
namespace {

std::optional<Table> fast_p_table(const MetricInput& in) {
  Table t =
      grouped_table("fast_p", "fast_p and FastpInst. curves",
                    "Share of units whose best kernel within the budget is correct (fastp_inst: target-correct) with "
                    "geomean speedup > p.",
                    {{"unit", FieldType::string, "",
                      "trajectory: each trajectory's best kernel; task: each problem's best kernel (KernelBench)"},
                     {"budget", FieldType::integer, "turns", "turn budget t"},
                     {"metric", FieldType::string, "", "fast_p or fastp_inst"},
                     {"p", FieldType::number, "x", "speedup threshold (strictly greater)"},
                     {"units", FieldType::integer, "units", "trajectories (or tasks) with a counted turn 1..budget"},
                     {"count", FieldType::integer, "units", "units faster than p"},
                     {"rate", FieldType::number, "fraction", "count / units"},
                     {"lo", FieldType::number, "fraction", "95% Wilson interval, low"},
                     {"hi", FieldType::number, "fraction", "95% Wilson interval, high"}});
  double max_speedup = 0;
  for (const auto& turn : in.set.turns)
    if (turn.correct() && turn.stored.speedup_geomean)
      max_speedup = std::max(max_speedup, *turn.stored.speedup_geomean);
  const auto grid = metrics::fastp_grid(max_speedup, in.settings.fastp_step);
  const std::string unit(to_string(in.settings.fastp_unit));
  for (const auto& g : in.groups)
    for (int b : in.settings.budgets)
      for (bool target : {false, true}) {
        const auto curve = metrics::fast_p(g.trajectories, b, target, in.settings.fastp_unit, grid);
        for (const auto& pt : curve.points)
          t.add(with_group(
              g, {unit, ll(b), std::string(target ? "fastp_inst" : "fast_p"), pt.p, ll(pt.rate.n), ll(pt.rate.k),
                  rate_value(pt.rate), interval_lo(pt.rate.wilson()), interval_hi(pt.rate.wilson())}));
      }
  return t;
}

std::vector<Grid> fastp_grids(const Report& r) {
  std::vector<Grid> out;
  const Table* t = r.table("fast_p");
  if (!t || t->rows.empty()) return out;
  // The thresholds shown: these where the report's grid has them.
  std::vector<double> ps;
  for (double want : {0.0, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0})
    for (size_t i = 0; i < t->rows.size(); ++i)
      if (std::abs(std::get<double>(t->at(i, "p")) - want) < 1e-9) {
        ps.push_back(std::get<double>(t->at(i, "p")));
        break;
      }
  for (int b : budgets_of(r)) {
    Grid g;
    g.title = "fast_p at budget " + std::to_string(b) + " (%): FastpInst. (fast_p), unit: " + cell_text(*t, 0, "unit");
    g.header = {"group"};
    for (double p : ps) g.header.push_back("p=" + fixed(p, 1));
    std::vector<std::string> groups;
    std::map<std::string, std::map<std::string, std::map<double, const Value*>>> v;  // group -> metric -> p -> rate
    for (size_t i = 0; i < t->rows.size(); ++i) {
      if (std::get<long long>(t->at(i, "budget")) != b) continue;
      const auto label = cell_text(*t, i, "group");
      if (std::find(groups.begin(), groups.end(), label) == groups.end()) groups.push_back(label);
      v[label][cell_text(*t, i, "metric")][std::get<double>(t->at(i, "p"))] = &t->at(i, "rate");
    }
    for (const auto& label : groups) {
      std::vector<std::string> row = {label};
      for (double p : ps) {
        auto cell = [&](const char* m) {
          auto& mm = v[label][m];
          auto it = mm.find(p);
          return it == mm.end() ? std::string("") : percent_cell(*it->second);
        };
        const auto inst = cell("fastp_inst"), any = cell("fast_p");
        row.push_back(inst.empty() ? "" : inst + " (" + any + ")");
      }
      g.rows.push_back(std::move(row));
    }
    g.note =
        "Share of units whose best kernel within the budget is (target-)correct with speedup > p. Full curves: "
        "--format json/csv/html.";
    out.push_back(std::move(g));
  }
  return out;
}

PTXBENCH_REGISTER_METRIC_TABLE(50, fast_p_table);
PTXBENCH_REGISTER_TEXT_SECTION(80, fastp_grids);

}  // namespace
}  // namespace ptxbench::report
