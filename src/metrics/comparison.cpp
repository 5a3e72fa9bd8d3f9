// Two selections of trajectories side by side per problem and budget: values, difference and interval.
#include "metrics/comparison.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "metrics/turn_correctness.h"

namespace ptxbench::metrics {

bool Selector::matches(const Trajectory& t) const {
  for (const auto& [dim, value] : conditions)
    if (dim_value(t, dim) != value) return false;
  return true;
}

Selector parse_selector(const std::string& text) {
  Selector s;
  s.text = text;
  if (text.empty()) throw InputError("--compare: an empty side (write A..B, each a run id or key=value[+key=value])");
  if (text.find('=') == std::string::npos) {
    s.conditions.push_back({Dim::run, text});
    return s;
  }
  std::stringstream ss(text);
  for (std::string cond; std::getline(ss, cond, '+');) {
    const auto eq = cond.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--compare: '" + cond + "' in '" + text + "' is not key=value");
    const GroupBy dim = parse_group_by(cond.substr(0, eq));
    if (dim.dims.size() != 1) throw InputError("--compare: unknown key '" + cond.substr(0, eq) + "'");
    s.conditions.push_back({dim.dims.front(), cond.substr(eq + 1)});
  }
  return s;
}

ComparisonSpec parse_comparison(const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos)
    throw InputError("--compare '" + text +
                     "': write A..B (each side a run id or key=value[+key=value], e.g. model=x..model=y)");
  return {text, parse_selector(text.substr(0, dots)), parse_selector(text.substr(dots + 2))};
}

std::vector<ComparisonRow> compare(const std::vector<Trajectory>& trajectories, const ComparisonSpec& spec,
                                   const std::vector<int>& budgets, const BootstrapSettings& bootstrap,
                                   const std::vector<std::string>& problem_order) {
  std::vector<const Trajectory*> all_a, all_b;
  for (const auto& t : trajectories) {
    if (spec.a.matches(t)) all_a.push_back(&t);
    if (spec.b.matches(t)) all_b.push_back(&t);
  }
  if (all_a.empty()) throw InputError("--compare " + spec.text + ": '" + spec.a.text + "' selects no trajectory");
  if (all_b.empty()) throw InputError("--compare " + spec.text + ": '" + spec.b.text + "' selects no trajectory");
  std::vector<ComparisonRow> rows;
  for (const auto& problem : problem_order) {
    std::vector<const Trajectory*> a, b;
    for (auto* t : all_a)
      if (t->problem == problem) a.push_back(t);
    for (auto* t : all_b)
      if (t->problem == problem) b.push_back(t);
    if (a.empty() || b.empty()) continue;
    for (int budget : budgets) {
      const auto ca = turn_correctness(a, budget), cb = turn_correctness(b, budget);
      for (bool target : {true, false}) {
        ComparisonRow r;
        r.problem = problem, r.budget = budget, r.metric = target ? "target_rate" : "correct_rate";
        const Rate& ra = target ? ca.target_correct : ca.correct;
        const Rate& rb = target ? cb.target_correct : cb.correct;
        r.a = ra.value(), r.b = rb.value(), r.a_units = ra.n, r.b_units = rb.n;
        if (r.a && r.b) r.difference = *r.b - *r.a;
        r.interval = newcombe_difference(ra, rb);
        r.method = "Newcombe hybrid score 95% (Wilson, turns independent)";
        rows.push_back(std::move(r));
      }
      for (bool target : {true, false}) {
        ComparisonRow r;
        r.problem = problem, r.budget = budget, r.metric = target ? "best_target_speedup" : "best_speedup";
        const auto ba = per_trajectory_best(a, budget, target), bb = per_trajectory_best(b, budget, target);
        const double ma = *std::max_element(ba.begin(), ba.end()), mb = *std::max_element(bb.begin(), bb.end());
        if (ma > 0) r.a = ma;
        if (mb > 0) r.b = mb;
        r.a_units = static_cast<long long>(a.size()), r.b_units = static_cast<long long>(b.size());
        r.difference = mb - ma;
        r.interval = bootstrap_percentile2(
            ba.size(), bb.size(), bootstrap.resamples,
            seed_for(bootstrap.seed, spec.text + "/" + problem + "/" + r.metric + "/" + std::to_string(budget)),
            [&](const std::vector<size_t>& ia, const std::vector<size_t>& ib) {
              double xa = 0, xb = 0;
              for (size_t i : ia) xa = std::max(xa, ba[i]);
              for (size_t i : ib) xb = std::max(xb, bb[i]);
              return xb - xa;
            });
        r.method = "percentile bootstrap 95% over trajectories, " + std::to_string(bootstrap.resamples) +
                   " resamples, seed " + std::to_string(bootstrap.seed) + "; no kernel scores 0";
        rows.push_back(std::move(r));
      }
    }
  }
  for (auto& r : rows) r.excludes_zero = r.interval && (r.interval->lo > 0 || r.interval->hi < 0);
  return rows;
}

}  // namespace ptxbench::metrics
