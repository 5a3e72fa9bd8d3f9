// Two selections of trajectories side by side (model vs model, knowledge ablation, before vs after
// fine-tuning), per problem and budget: each side's value, the difference b - a and its 95%
// interval. Rates: Newcombe's hybrid score interval (from the Wilson intervals, sides independent).
// Best speedups: percentile bootstrap of max(b) - max(a), each side resampled over its own
// trajectories; a side with no qualifying kernel scores 0. docs/metrics.md, "Comparisons".
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/best_speedup.h"
#include "metrics/grouping.h"

namespace ptxbench::metrics {

// "RUN_ID", or conditions joined by '+': "model=openai:gpt-5+knowledge=params,ptx,contract".
struct Selector {
  std::string text;
  std::vector<std::pair<Dim, std::string>> conditions;
  bool matches(const Trajectory& t) const;
};
Selector parse_selector(const std::string& text);

// "A..B": b is compared against a.
struct ComparisonSpec {
  std::string text;
  Selector a, b;
};
ComparisonSpec parse_comparison(const std::string& text);

struct ComparisonRow {
  std::string problem;
  int budget = 0;
  std::string metric;  // correct_rate, target_rate, best_speedup, best_target_speedup
  std::optional<double> a, b, difference;
  std::optional<Interval> interval;
  long long a_units = 0, b_units = 0;  // turns (rates) or trajectories (speedups)
  bool excludes_zero = false;
  std::string method;
};

// InputError when a side selects no trajectory.
std::vector<ComparisonRow> compare(const std::vector<Trajectory>& trajectories, const ComparisonSpec& spec,
                                   const std::vector<int>& budgets, const BootstrapSettings& bootstrap,
                                   const std::vector<std::string>& problem_order);

}  // namespace ptxbench::metrics
