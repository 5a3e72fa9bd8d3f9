// The paper's table layouts, shared by the text sections of the report's tables
// (metric_tables/*.cpp): grids pivoted from a table's rows, and the cells' formats.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "report/result_schema.h"
#include "report/text_view.h"

namespace ptxbench::report {

std::string cell_text(const Table& t, size_t row, std::string_view field);  // value_text of the cell
std::string fixed(double v, int decimals);                                  // printf "%.*f"
std::vector<int> budgets_of(const Report& r);                               // meta.budgets

std::string percent_cell(const Value& fraction);  // 0.333.. -> "33.3", 0 -> "–", null -> "n/a"
std::string speedup_cell(const Value& x);         // 0.9684 -> "0.968", null -> "–"
// "[lo, hi]" of two fields, in percent or as speedups; "n/a" without an interval.
std::string interval_text(const Table& t, size_t i, const char* lo_field, const char* hi_field, bool percent);

// The cell of one row of a per-budget table: fmt(table, row, field).
using BudgetCellFormat = std::function<std::string(const Table&, size_t, const char*)>;
// Table-1 style: one grid per arch (GPU), rows = models (with any other grouped dimension),
// columns = problems; cell "a / b / c (d / e / f)": `first` then `second` at the report's budgets,
// "*" where the budget exceeds the turns a run was given. `ablation`: Table-3 style instead, one
// grid per (arch, model), rows = knowledge settings, only where a grid has more than one.
std::vector<Grid> budget_grids(const Report& r, const char* table, const std::string& what, const char* first,
                               const char* second, const BudgetCellFormat& fmt, const std::string& note,
                               bool ablation = false);

// A table too long for text: its title and "N rows: in --format json, csv and html" (none without it).
std::vector<Grid> row_count_note(const Report& r, const char* table);

// Any table as is (numbers as the schema's text), at most `max_rows` rows (0: all).
Grid plain_grid(const Table& t, const std::vector<std::string>& fields = {}, size_t max_rows = 0);

}  // namespace ptxbench::report
