// The html report format: one self-contained page with the tables and plotly charts inlined.
#include <algorithm>
#include <map>
#include <tuple>

#include "metrics/transitions.h"
#include "report/html_assets.h"
#include "report/plotly_js.h"
#include "report/printer.h"
#include "report/text_view.h"
#include "store/turn_json.h"

namespace ptxbench::report {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON text safe inside <script type="application/json">: "</" and "<!--" cannot end or open
// anything there ("<" only occurs inside JSON strings, where "\/" and "\u003c" mean the same).
std::string script_json(const json& j) {
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string grid_html(const Grid& g) {
  std::string out = "<h3>" + escape(g.title) + "</h3>\n";
  if (!g.header.empty()) {
    out += "<table class=\"grid\"><tr>";
    for (const auto& h : g.header) out += "<th>" + escape(h) + "</th>";
    out += "</tr>\n";
    for (const auto& row : g.rows) {
      out += "<tr>";
      for (const auto& c : row) out += "<td>" + escape(c) + "</td>";
      out += "</tr>\n";
    }
    out += "</table>\n";
  }
  if (!g.note.empty()) out += "<p class=\"note\">" + escape(g.note) + "</p>\n";
  return out;
}

// The HTML report: one self-contained file that opens offline. plotly.min.js is inlined; the
// report's tables (the JSON format's) are embedded once, and each trajectory's turn details
// (code, feedback, verdict reason, per-shape timings) in its own JSON script element that the page
// parses only when the trajectory is opened, so a run of thousands of turns stays fast.
class HtmlPrinter final : public Printer {
 public:
  bool needs_turn_detail() const override { return true; }
  std::string whole_report_reason() const override { return "the page needs every table"; }
  void prepare() override { plotly_js_ = read_plotly_js(find_plotly_js()); }
  std::string print(const Report& r, const metrics::TurnSet* turns) const override;

 private:
  std::string plotly_js_;
};

std::string HtmlPrinter::print(const Report& r, const metrics::TurnSet* turns_in) const {
  static const metrics::TurnSet kNoTurns;
  const metrics::TurnSet& set = turns_in ? *turns_in : kNoTurns;
  const std::string& plotly_js = plotly_js_;
  // The page reads the report's own tables; the per-turn table is carried by the details instead.
  json data = to_json(r);
  json kept = json::array();
  for (auto& t : data["tables"])
    if (t["name"] != "turns") kept.push_back(std::move(t));
  data["tables"] = std::move(kept);

  std::map<std::tuple<std::string, std::string, int>, std::vector<const metrics::TurnRow*>> turns;
  for (const auto& t : set.turns) turns[{t.run, t.problem, t.trajectory}].push_back(&t);

  const TextView view = text_view(r);
  std::string out;
  out.reserve(plotly_js.size() + (size_t(1) << 20));
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>PTXBench report</title>\n";
  // Installed before anything else runs, so the browser test sees every error the page logs.
  out +=
      "<script>window.__ptxbenchErrors=[];window.addEventListener('error',function(e){window.__ptxbenchErrors.push("
      "String(e.message));});"
      "(function(){var "
      "ce=console.error;console.error=function(){window.__ptxbenchErrors.push(Array.prototype.map.call(arguments,"
      "String).join(' '));"
      "return ce.apply(console,arguments);};})();</script>\n";
  out += "<style>\n" + std::string(kReportCss) + "</style>\n<script>\n" + plotly_js + "\n</script>\n</head>\n<body>\n";
  out += "<header><h1>PTXBench report</h1><ul>";
  for (const auto& line : view.preamble) out += "<li>" + escape(line) + "</li>";
  out +=
      "</ul></header>\n<nav><a href=\"#plots\">Plots</a><a href=\"#tables\">Tables</a><a "
      "href=\"#trajectories\">Trajectories</a></nav>\n";
  out +=
      "<section id=\"plots\"><h2>Plots</h2>\n"
      "<div class=\"controls\"><label>fast_p budget <select id=\"fastp-budget\"></select></label>"
      "<label>transitions of <select id=\"transition-group\"></select></label></div>\n<div class=\"plots\">"
      "<div class=\"plot\" id=\"plot-fastp\"></div><div class=\"plot\" id=\"plot-fastp-inst\"></div>"
      "<div class=\"plot\" id=\"plot-transitions\"></div><div class=\"plot\" id=\"plot-speedups\"></div>"
      "<div class=\"plot\" id=\"plot-correctness-turn\"></div><div class=\"plot\" id=\"plot-reasoning\"></div>" +
      std::string(r.table("fixit_records") ? "<div class=\"plot\" id=\"plot-fixit\"></div>" : "") +
      "</div>\n</section>\n";
  out += "<section id=\"tables\"><h2>Tables</h2>\n";
  for (const auto& g : view.grids) out += "<div class=\"scroll\">" + grid_html(g) + "</div>";
  out += "</section>\n";
  out +=
      "<section id=\"trajectories\"><h2>Trajectories</h2>\n<div class=\"controls\">"
      "<label>filter <input id=\"traj-filter\" type=\"search\" placeholder=\"model, run, problem, state...\"></label>"
      "<label>problem <select id=\"traj-problem\"></select></label><label>final state <select "
      "id=\"traj-state\"></select></label>"
      "<span id=\"traj-count\" class=\"muted\"></span></div>\n"
      "<p class=\"note\">Click a column to sort, a row to open its turns (code, feedback, verdict, timings).</p>\n"
      "<table class=\"traj\"><thead><tr id=\"traj-head\"></tr></thead><tbody id=\"traj-body\"></tbody></table>\n"
      "<button id=\"traj-more\">show more</button>\n</section>\n";
  out += "<script type=\"application/json\" id=\"report-data\">" + script_json(data) + "</script>\n";
  // One detail element per row of the trajectories table, in its order.
  if (const Table* trs = r.table("trajectories")) {
    for (size_t i = 0; i < trs->rows.size(); ++i) {
      const auto key =
          std::make_tuple(value_text(trs->at(i, "trajectory_run")), value_text(trs->at(i, "trajectory_problem")),
                          static_cast<int>(std::get<long long>(trs->at(i, "trajectory"))));
      json list = json::array();
      auto it = turns.find(key);
      if (it != turns.end()) {
        auto sorted = it->second;
        std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->turn < b->turn; });
        for (const auto* t : sorted) {
          json shapes = json::array();
          for (const auto& s : t->shapes)
            shapes.push_back({{"shape", s.shape},
                              {"speedup", s.speedup},
                              {"median_ms", opt_json(s.median_ms)},
                              {"baseline_median_ms", opt_json(s.baseline_median_ms)}});
          json turn = {{"turn", t->turn},
                       {"state", std::string(metrics::to_string(t->state))},
                       {"transition_state", metrics::transition_state(*t)}};
          put_turn_fields(t->stored, TurnKeys::report_columns, turn);  // as declared (store/turn_row.h)
          turn["reason"] = t->reason;
          turn["shapes"] = shapes;
          turn["feedback"] = t->stored.feedback;
          turn["code"] = t->code;
          list.push_back(std::move(turn));
        }
      }
      out +=
          "<script type=\"application/json\" id=\"d-" + std::to_string(i) + "\">" + script_json(list) + "</script>\n";
    }
  }
  out += "<script>\n" + std::string(kReportJs) + "</script>\n</body>\n</html>\n";
  return out;
}

PTXBENCH_REGISTER_PRINTER("html", 60, HtmlPrinter);

}  // namespace
}  // namespace ptxbench::report
