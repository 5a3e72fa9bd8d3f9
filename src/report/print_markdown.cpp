#include "report/paper_layout.h"
#include "report/printers.h"

namespace ptxbench::report {
namespace {

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string print_markdown(const Report& r) {
  const TextView v = text_view(r);
  std::string out = "# " + std::string(r.meta.value("title", "PTXBench report")) + "\n\n";
  for (const auto& line : v.preamble) out += "- " + md_cell(line) + "\n";
  for (const auto& g : v.grids) {
    out += "\n## " + md_cell(g.title) + "\n\n";
    if (!g.header.empty()) {
      out += "|";
      for (const auto& h : g.header) out += " " + md_cell(h) + " |";
      out += "\n|";
      for (size_t i = 0; i < g.header.size(); ++i) out += i == 0 ? " :--- |" : " ---: |";
      out += "\n";
      for (const auto& row : g.rows) {
        out += "|";
        for (const auto& c : row) out += " " + md_cell(c) + " |";
        out += "\n";
      }
      if (g.rows.empty()) out += "\n(no rows)\n";
    }
    if (!g.note.empty()) out += (g.header.empty() ? "" : "\n") + std::string("_") + md_cell(g.note) + "_\n";
  }
  return out;
}

}  // namespace ptxbench::report
