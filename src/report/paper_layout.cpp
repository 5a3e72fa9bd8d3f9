// The paper's table layouts: grids pivoted from a table's rows, and the cells' formats.
#include "report/paper_layout.h"

#include "core/json_integer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace ptxbench::report {

std::string cell_text(const Table& t, size_t row, std::string_view field) { return value_text(t.at(row, field)); }

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::vector<int> budgets_of(const Report& r) {
  std::vector<int> b;
  if (r.meta.contains("budgets"))
    for (const auto& x : r.meta["budgets"]) b.push_back(json_integer<int>(x, "report meta.budgets"));
  return b;
}

namespace {

const std::string kDash = "\u2013";

std::string str(const Table& t, size_t row, std::string_view f) { return cell_text(t, row, f); }

// The grouped dimensions other than arch and problem name a row of the paper layout; one that is
// empty in every row of `t` (no split recorded) is left out.
std::vector<std::string> row_dims(const Report& r, const Table& t, bool keep_knowledge = true) {
  std::vector<std::string> dims;
  if (r.meta.contains("group_by"))
    for (const auto& d : r.meta["group_by"]) {
      const auto s = d.get<std::string>();
      if (s == "arch" || s == "problem" || (!keep_knowledge && s == "knowledge")) continue;
      bool any = false;
      for (size_t i = 0; i < t.rows.size() && !any; ++i) any = !value_text(t.at(i, s)).empty();
      if (any) dims.push_back(s);
    }
  return dims;
}

std::string row_label(const Table& t, size_t row, const std::vector<std::string>& dims) {
  std::string label;
  for (const auto& d : dims) {
    std::string v = str(t, row, d);
    if (v.empty()) v = "(none)";
    label += (label.empty() ? "" : " / ") + v;
  }
  return label.empty() ? "all" : label;
}

// Pivot: blocks (by block key) x rows (by row label, first-seen order) x columns (problems, first-seen order).
struct Pivot {
  struct Block {
    std::string title;
    std::vector<std::string> rows, cols;
    std::map<std::pair<std::string, std::string>, std::vector<size_t>> cells;  // (row, col) -> table rows
  };
  std::vector<std::string> order;
  std::map<std::string, Block> blocks;
};

template <class BlockOf, class RowOf>
Pivot pivot(const Table& t, BlockOf block_of, RowOf row_of) {
  Pivot p;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto [key, title] = block_of(i);
    auto [it, inserted] = p.blocks.try_emplace(key);
    if (inserted) p.order.push_back(key), it->second.title = title;
    auto& b = it->second;
    const std::string row = row_of(i), col = str(t, i, "problem");
    if (std::find(b.rows.begin(), b.rows.end(), row) == b.rows.end()) b.rows.push_back(row);
    if (std::find(b.cols.begin(), b.cols.end(), col) == b.cols.end()) b.cols.push_back(col);
    b.cells[{row, col}].push_back(i);
  }
  return p;
}

std::string arch_title(const Table& t, size_t i) {
  const std::string arch = str(t, i, "arch"), gpu = str(t, i, "gpu");
  return (arch == "*" ? std::string("all archs") : arch) + (gpu.empty() ? "" : " (" + gpu + ")");
}

bool has_field(const Table& t, std::string_view f) {
  for (const auto& x : t.fields)
    if (x.name == f) return true;
  return false;
}

// A cell over one group's rows at the budgets: "a / b / c (d / e / f)".
template <class Fmt>
std::string budget_cell(const Table& t, const std::vector<size_t>& rows, const std::vector<int>& budgets,
                        const char* first, const char* second, Fmt fmt) {
  auto at_budget = [&](int b) -> const size_t* {
    for (const size_t& i : rows)
      if (std::get<long long>(t.at(i, "budget")) == b) return &i;
    return nullptr;
  };
  std::string a, c;
  for (int b : budgets) {
    const size_t* i = at_budget(b);
    // "*": the budget exceeds the turns some run of the group was given (its later turns cannot exist).
    const bool beyond = i && has_field(t, "beyond_run_budget") && t.at(*i, "beyond_run_budget") == Value(true);
    a += (a.empty() ? "" : " / ") + (i ? fmt(*i, first) + (beyond ? "*" : "") : std::string("n/a"));
    c += (c.empty() ? "" : " / ") + (i ? fmt(*i, second) + (beyond ? "*" : "") : std::string("n/a"));
  }
  return a + " (" + c + ")";
}

}  // namespace

std::vector<Grid> budget_grids(const Report& r, const char* table, const std::string& what, const char* first,
                               const char* second, const BudgetCellFormat& fmt, const std::string& note,
                               bool ablation) {
  std::vector<Grid> out;
  const Table* t = r.table(table);
  if (!t || t->rows.empty()) return out;
  const auto budgets = budgets_of(r);
  std::string bl;
  for (int b : budgets) bl += (bl.empty() ? "" : " / ") + std::to_string(b);
  const auto dims = row_dims(r, *t, !ablation);
  auto p = ablation ? pivot(
                          *t,
                          [&](size_t i) {
                            const std::string model = str(*t, i, "model");
                            std::string key = str(*t, i, "arch") + "\n" + model;
                            for (const auto& d : dims)
                              if (d != "model") key += "\n" + str(*t, i, d);
                            std::string title = arch_title(*t, i) + ", " + model;
                            for (const auto& d : dims)
                              if (d != "model" && !str(*t, i, d).empty()) title += ", " + d + " " + str(*t, i, d);
                            return std::make_pair(key, title);
                          },
                          [&](size_t i) { return str(*t, i, "knowledge"); })
                    : pivot(
                          *t, [&](size_t i) { return std::make_pair(str(*t, i, "arch"), arch_title(*t, i)); },
                          [&](size_t i) { return row_label(*t, i, dims); });
  for (const auto& key : p.order) {
    auto& b = p.blocks[key];
    if (ablation && b.rows.size() < 2) continue;
    Grid g;
    g.title = what + ", " + b.title + ", budgets " + bl + " turns";
    g.header.push_back(ablation ? "knowledge" : (dims.empty() ? "group" : [&] {
      std::string h;
      for (const auto& d : dims) h += (h.empty() ? "" : " / ") + d;
      return h;
    }()));
    for (const auto& c : b.cols) g.header.push_back(c);
    for (const auto& row : b.rows) {
      std::vector<std::string> cells = {row};
      for (const auto& c : b.cols) {
        auto it = b.cells.find({row, c});
        cells.push_back(it == b.cells.end() ? ""
                                            : budget_cell(*t, it->second, budgets, first, second,
                                                          [&](size_t i, const char* f) { return fmt(*t, i, f); }));
      }
      g.rows.push_back(std::move(cells));
    }
    g.note = note;
    out.push_back(std::move(g));
  }
  return out;
}

std::string percent_cell(const Value& v) {
  if (const double* d = std::get_if<double>(&v)) return *d == 0 ? kDash : fixed(100 * *d, 1);
  return "n/a";
}

std::string speedup_cell(const Value& v) {
  if (const double* d = std::get_if<double>(&v)) return fixed(*d, 3);
  return kDash;
}

std::string interval_text(const Table& t, size_t i, const char* lo_field, const char* hi_field, bool percent) {
  const Value& l = t.at(i, lo_field);
  const Value& h = t.at(i, hi_field);
  if (std::holds_alternative<std::monostate>(l)) return "n/a";
  const double a = std::get<double>(l), b = std::get<double>(h);
  return percent ? "[" + fixed(100 * a, 1) + ", " + fixed(100 * b, 1) + "]"
                 : "[" + fixed(a, 3) + ", " + fixed(b, 3) + "]";
}

Grid plain_grid(const Table& t, const std::vector<std::string>& fields, size_t max_rows) {
  Grid g;
  g.title = t.title;
  std::vector<size_t> cols;
  if (fields.empty())
    for (size_t i = 0; i < t.fields.size(); ++i) cols.push_back(i);
  else
    for (const auto& f : fields) cols.push_back(t.column(f));
  for (size_t c : cols) g.header.push_back(t.fields[c].name);
  const size_t n = max_rows ? std::min(max_rows, t.rows.size()) : t.rows.size();
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> row;
    for (size_t c : cols) {
      const Value& v = t.rows[i][c];
      row.push_back(std::holds_alternative<double>(v) ? fixed(std::get<double>(v), 3) : value_text(v));
    }
    g.rows.push_back(std::move(row));
  }
  if (n < t.rows.size()) g.note = std::to_string(t.rows.size() - n) + " more rows: --format json or csv";
  return g;
}

std::vector<Grid> row_count_note(const Report& r, const char* table) {
  const Table* t = r.table(table);
  if (!t) return {};
  Grid g;
  g.title = t->title;
  g.note = std::to_string(t->rows.size()) + " rows: in --format json, csv and html";
  return {g};
}

}  // namespace ptxbench::report
