// The md report format: the text view's sections as markdown tables.
#include "report/printer.h"
#include "report/text_view.h"

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

// Markdown: the same views as the terminal's table, as headings and pipe tables.
class MarkdownPrinter final : public Printer {
 public:
  std::string print(const Report& r, const metrics::TurnSet*) const override;
};

std::string MarkdownPrinter::print(const Report& r, const metrics::TurnSet*) const {
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

PTXBENCH_REGISTER_PRINTER("md", 20, MarkdownPrinter);

}  // namespace
}  // namespace ptxbench::report
