#include "report/paper_layout.h"
#include "core/json_integer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

namespace ptxbench::report {
namespace {

const std::string kDash = "\u2013";

std::string str(const Table& t, size_t row, std::string_view f) { return value_text(t.at(row, f)); }

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

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

std::vector<int> budgets_of(const Report& r) {
  std::vector<int> b;
  if (r.meta.contains("budgets"))
    for (const auto& x : r.meta["budgets"]) b.push_back(json_integer<int>(x, "report meta.budgets"));
  return b;
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
std::string budget_cell(const Table& t, const std::vector<size_t>& rows, const std::vector<int>& budgets, const char* first,
                        const char* second, Fmt fmt) {
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

std::vector<Grid> budget_grids(const Report& r, const char* table, const std::string& what, const char* first,
                               const char* second, const std::function<std::string(const Table&, size_t, const char*)>& fmt,
                               const std::string& note, bool ablation = false) {
  std::vector<Grid> out;
  const Table* t = r.table(table);
  if (!t || t->rows.empty()) return out;
  const auto budgets = budgets_of(r);
  std::string bl;
  for (int b : budgets) bl += (bl.empty() ? "" : " / ") + std::to_string(b);
  const auto dims = row_dims(r, *t, !ablation);
  auto p = ablation ? pivot(*t,
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
                    : pivot(*t, [&](size_t i) { return std::make_pair(str(*t, i, "arch"), arch_title(*t, i)); },
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
        cells.push_back(it == b.cells.end() ? "" : budget_cell(*t, it->second, budgets, first, second,
                                                               [&](size_t i, const char* f) { return fmt(*t, i, f); }));
      }
      g.rows.push_back(std::move(cells));
    }
    g.note = note;
    out.push_back(std::move(g));
  }
  return out;
}

std::string interval_text(const Table& t, size_t i, const char* lo_field, const char* hi_field, bool percent) {
  const Value& l = t.at(i, lo_field);
  const Value& h = t.at(i, hi_field);
  if (std::holds_alternative<std::monostate>(l)) return "n/a";
  const double a = std::get<double>(l), b = std::get<double>(h);
  return percent ? "[" + fixed(100 * a, 1) + ", " + fixed(100 * b, 1) + "]" : "[" + fixed(a, 3) + ", " + fixed(b, 3) + "]";
}

}  // namespace

std::string percent_cell(const Value& v) {
  if (const double* d = std::get_if<double>(&v)) return *d == 0 ? kDash : fixed(100 * *d, 1);
  return "n/a";
}

std::string speedup_cell(const Value& v) {
  if (const double* d = std::get_if<double>(&v)) return fixed(*d, 3);
  return kDash;
}

std::vector<Grid> correctness_grids(const Report& r) {
  return budget_grids(
      r, "correctness", "Turn correctness (%): target-instruction (unrestricted)", "target_rate", "correct_rate",
      [](const Table& t, size_t i, const char* f) { return percent_cell(t.at(i, f)); },
      "Cells: target-instruction turn correctness at each budget, unrestricted correctness in parentheses; "
      "denominator = counted turns 1..t (trajectories x t when none is excluded or missing); \u2013 = 0; "
      "* = the budget exceeds the turns a run was given.");
}

std::vector<Grid> correctness_interval_grids(const Report& r) {
  return budget_grids(
      r, "correctness", "95% Wilson intervals (%): target-instruction (unrestricted)", "target", "correct",
      [](const Table& t, size_t i, const char* f) {
        const std::string p(f);
        return interval_text(t, i, (p + "_lo").c_str(), (p + "_hi").c_str(), true);
      },
      "Wilson score intervals treat turns as independent; turns of one trajectory are correlated, so read them as optimistic.");
}

std::vector<Grid> best_speedup_grids(const Report& r) {
  return budget_grids(
      r, "best_speedup", "Best speedup vs library (x): target-instruction (unrestricted)", "best_target_speedup", "best_speedup",
      [](const Table& t, size_t i, const char* f) { return speedup_cell(t.at(i, f)); },
      "Cells: highest geomean speedup among target-correct turns 1..t of any trajectory, any correct turn in parentheses; "
      "\u2013 = no such kernel.");
}

std::vector<Grid> best_speedup_interval_grids(const Report& r) {
  const std::string method = r.meta.contains("intervals") ? r.meta["intervals"].value("best_speedup", "") : "";
  return budget_grids(
      r, "best_speedup", "95% bootstrap intervals of the best speedup: target-instruction (unrestricted)", "best_target", "best",
      [](const Table& t, size_t i, const char* f) {
        const std::string p(f);
        return interval_text(t, i, (p + "_lo").c_str(), (p + "_hi").c_str(), false);
      },
      method);
}

std::vector<Grid> knowledge_ablation_grids(const Report& r) {
  bool by_knowledge = false;
  if (r.meta.contains("group_by"))
    for (const auto& d : r.meta["group_by"]) by_knowledge = by_knowledge || d == "knowledge";
  if (!by_knowledge) return {};
  return budget_grids(
      r, "correctness", "Knowledge ablation, turn correctness (%): target-instruction (unrestricted)", "target_rate", "correct_rate",
      [](const Table& t, size_t i, const char* f) { return percent_cell(t.at(i, f)); },
      "Rows: the prompt's knowledge components (params = architecture parameters, ptx = PTX template functions, "
      "contract = architecture contract); +notes = repair notes in the feedback after a failing turn, +notes+kernel = "
      "with their fixed kernels (@same-problem: notes of the problem itself allowed).",
      true);
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
    g.title = "fast_p at budget " + std::to_string(b) + " (%): FastpInst. (fast_p), unit: " + str(*t, 0, "unit");
    g.header = {"group"};
    for (double p : ps) g.header.push_back("p=" + fixed(p, 1));
    std::vector<std::string> groups;
    std::map<std::string, std::map<std::string, std::map<double, const Value*>>> v;  // group -> metric -> p -> rate
    for (size_t i = 0; i < t->rows.size(); ++i) {
      if (std::get<long long>(t->at(i, "budget")) != b) continue;
      const auto label = str(*t, i, "group");
      if (std::find(groups.begin(), groups.end(), label) == groups.end()) groups.push_back(label);
      v[label][str(*t, i, "metric")][std::get<double>(t->at(i, "p"))] = &t->at(i, "rate");
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
    g.note = "Share of units whose best kernel within the budget is (target-)correct with speedup > p. Full curves: --format json/csv/html.";
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Grid> transition_grids(const Report& r) {
  std::vector<Grid> out;
  const Table* t = r.table("transitions");
  if (!t || t->rows.empty()) return out;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<size_t>> rows;
  for (size_t i = 0; i < t->rows.size(); ++i) {
    const auto label = str(*t, i, "group");
    if (!rows.count(label)) groups.push_back(label);
    rows[label].push_back(i);
  }
  for (const auto& label : groups) {
    std::vector<std::string> states;  // rows are in the diagram's order already
    auto add = [&](const std::string& s) {
      if (std::find(states.begin(), states.end(), s) == states.end()) states.push_back(s);
    };
    for (size_t i : rows[label]) add(str(*t, i, "from"));
    for (size_t i : rows[label]) add(str(*t, i, "to"));
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
          if (str(*t, i, "from") == from && str(*t, i, "to") == to) cell = str(*t, i, "count"), any = true;
        row.push_back(cell);
      }
      if (any) g.rows.push_back(std::move(row));
    }
    out.push_back(std::move(g));
  }
  return out;
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
    const auto label = str(*t, i, "group");
    if (!cells.count(label)) {
      groups.push_back(label);
      cells[label] = std::vector<std::string>(static_cast<size_t>(max_turn) + 2, "");
      cells[label][0] = label, cells[label][1] = str(*t, i, "unit");
    }
    const auto& mean = t->at(i, "mean");
    cells[label][static_cast<size_t>(std::get<long long>(t->at(i, "turn"))) + 1] =
        std::holds_alternative<double>(mean) ? fixed(std::get<double>(mean), 1) : "";
  }
  for (const auto& label : groups) g.rows.push_back(cells[label]);
  g.note = "Tokens where the provider reported reasoning tokens for every reply of the group, else characters of reasoning text.";
  out.push_back(std::move(g));
  return out;
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

}  // namespace ptxbench::report

namespace ptxbench::report {

TextView text_view(const Report& r) {
  TextView v;
  const json& m = r.meta;
  if (m.contains("title")) v.preamble.push_back(m["title"].get<std::string>());
  if (m.contains("generator") && !m["generator"].get<std::string>().empty()) v.preamble.push_back("generated by " + m["generator"].get<std::string>());
  if (m.contains("inputs") && !m["inputs"].empty()) {
    std::string s;
    for (const auto& x : m["inputs"]) s += (s.empty() ? "" : ", ") + x.get<std::string>();
    v.preamble.push_back("inputs: " + s);
  }
  if (r.format != "ptxbench.report/1") {
    // Other reports print their tables, limited to meta.text_fields[table] where given.
    for (const auto& t : r.tables) {
      std::vector<std::string> fields;
      if (m.contains("text_fields") && m["text_fields"].contains(t.name))
        for (const auto& f : m["text_fields"][t.name]) fields.push_back(f.get<std::string>());
      v.grids.push_back(plain_grid(t, fields));
      if (!fields.empty()) v.grids.back().note = "All fields: --format json, jsonl or csv.";
    }
    return v;
  }
  std::string budgets, dims;
  for (const auto& b : m["budgets"]) budgets += (budgets.empty() ? "" : ", ") + b.dump();
  for (const auto& d : m["group_by"]) dims += (dims.empty() ? "" : ", ") + d.get<std::string>();
  v.preamble.push_back("turn budgets: " + budgets + "; grouped by: " + (dims.empty() ? std::string("nothing (one group)") : dims) +
                       "; fast_p unit: " + m["fastp_unit"].get<std::string>());
  v.preamble.push_back("rates: " + m["intervals"]["rates"].get<std::string>());
  v.preamble.push_back("best speedups: " + m["intervals"]["best_speedup"].get<std::string>());
  v.preamble.push_back("counted turns: " + m["rules"]["counted"].get<std::string>() + "; " + m["rules"]["budget"].get<std::string>());

  auto append = [&](std::vector<Grid> gs) {
    for (auto& g : gs) v.grids.push_back(std::move(g));
  };
  if (const Table* t = r.table("runs"))
    v.grids.push_back(plain_grid(*t, {"run", "model", "arch", "gpu", "knowledge", "status", "trajectories", "turns", "harness_version",
                                      "harness_commit", "nvcc", "driver", "seed_policy"}));
  if (const Table* t = r.table("coverage"))
    v.grids.push_back(plain_grid(*t, {"group", "trajectories", "finished", "unfinished", "counted", "excluded_infra_error",
                                      "excluded_not_run", "pending", "missing"}));
  append(correctness_grids(r));
  append(correctness_interval_grids(r));
  append(best_speedup_grids(r));
  append(best_speedup_interval_grids(r));
  append(knowledge_ablation_grids(r));
  append(fastp_grids(r));
  append(transition_grids(r));
  append(reasoning_grids(r));
  if (const Table* t = r.table("comparison")) {
    Grid g = plain_grid(*t, {"comparison", "problem", "budget", "metric", "a_value", "b_value", "difference", "diff_lo", "diff_hi",
                             "excludes_zero"});
    g.note = "Differences b - a. Rates: " + m["intervals"]["comparison_rates"].get<std::string>() + ". Speedups: " +
             m["intervals"]["comparison_speedups"].get<std::string>() + ".";
    v.grids.push_back(std::move(g));
  }
  // Fixit builds in the workspace (cli/cmd_report.cpp adds them): shown as they are.
  for (const char* name : {"fixit_builds", "fixit_records"})
    if (const Table* t = r.table(name)) v.grids.push_back(plain_grid(*t, {}));
  for (const char* name : {"speedups", "trajectories", "turns"})
    if (const Table* t = r.table(name)) {
      Grid g;
      g.title = t->title;
      g.note = std::to_string(t->rows.size()) + " rows: in --format json, csv and html";
      v.grids.push_back(std::move(g));
    }
  return v;
}

}  // namespace ptxbench::report
