// The views the text formats (terminal table, markdown, the HTML's tables) print: grids laid out
// like the paper's tables, pivoted from the report's rows. A grid holds text only; every number in
// it is one of the report's fields, formatted.
#pragma once
#include <string>
#include <vector>

#include "report/result_schema.h"

namespace ptxbench::report {

struct Grid {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string note;  // printed under the grid
};

// Table-1 style: one block per arch (GPU), rows = models (with any other grouped dimension),
// columns = problems; cell "target / target / target (unrestricted / ...)" in percent at the
// budgets, "–" for zero, "n/a" where no turn counted.
std::vector<Grid> correctness_grids(const Report& r);
// The 95% Wilson intervals of the same cells (target-instruction rates, then unrestricted).
std::vector<Grid> correctness_interval_grids(const Report& r);
// Best (target-)speedup in the same layout, and its bootstrap intervals.
std::vector<Grid> best_speedup_grids(const Report& r);
std::vector<Grid> best_speedup_interval_grids(const Report& r);
// Table-3 style knowledge ablation: one block per (arch, model), rows = knowledge settings. Empty
// unless the report groups by knowledge and some block has more than one setting.
std::vector<Grid> knowledge_ablation_grids(const Report& r);
// fast_p at a few thresholds, per budget: cell "FastpInst. (fast_p)" in percent.
std::vector<Grid> fastp_grids(const Report& r);
// One transition matrix per group (rows: from, columns: to, counts).
std::vector<Grid> transition_grids(const Report& r);
// Mean reasoning length per turn number, rows = groups.
std::vector<Grid> reasoning_grids(const Report& r);
// Any table as is (numbers as the schema's text), at most `max_rows` rows (0: all).
Grid plain_grid(const Table& t, const std::vector<std::string>& fields = {}, size_t max_rows = 0);

std::string percent_cell(const Value& fraction);  // 0.333.. -> "33.3", 0 -> "–", null -> "n/a"
std::string speedup_cell(const Value& x);         // 0.9684 -> "0.968", null -> "–"

}  // namespace ptxbench::report

namespace ptxbench::report {

// What the text formats print, in order: a preamble (generator, inputs, settings) and grids. A
// metrics report (ptxbench.report/1) prints the paper-style views; any other report its tables.
struct TextView {
  std::vector<std::string> preamble;
  std::vector<Grid> grids;
};
TextView text_view(const Report& r);

}  // namespace ptxbench::report
