// The table report format (the default on a terminal): the text view's grids aligned in columns.
#include <algorithm>

#include "report/text_view.h"
#include "report/printer.h"

namespace ptxbench::report {
namespace {

// Display width in code points (the cells are UTF-8: "–" is one column, three bytes).
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& s, size_t w, bool right) {
  const size_t n = width(s);
  if (n >= w) return s;
  return right ? std::string(w - n, ' ') + s : s + std::string(w - n, ' ');
}

// The terminal's format: aligned columns, the paper's layouts (paper_layout.h).
class TablePrinter final : public Printer {
 public:
  std::string print(const Report& r, const metrics::TurnSet*) const override;
};

std::string TablePrinter::print(const Report& r, const metrics::TurnSet*) const {
  const TextView v = text_view(r);
  std::string out;
  for (const auto& line : v.preamble) out += line + "\n";
  for (const auto& g : v.grids) {
    out += "\n" + g.title + "\n";
    if (!g.header.empty()) {
      std::vector<size_t> w(g.header.size(), 0);
      for (size_t i = 0; i < g.header.size(); ++i) w[i] = width(g.header[i]);
      for (const auto& row : g.rows)
        for (size_t i = 0; i < row.size() && i < w.size(); ++i) w[i] = std::max(w[i], width(row[i]));
      auto line = [&](const std::vector<std::string>& cells) {
        std::string l = " ";
        for (size_t i = 0; i < cells.size(); ++i)
          l += " " + pad(cells[i], w[i], i > 0) + (i + 1 < cells.size() ? " " : "");
        while (!l.empty() && l.back() == ' ') l.pop_back();
        return l + "\n";
      };
      out += line(g.header);
      std::string rule = " ";
      for (size_t i = 0; i < w.size(); ++i) rule += " " + std::string(w[i], '-') + (i + 1 < w.size() ? " " : "");
      out += rule + "\n";
      for (const auto& row : g.rows) out += line(row);
      if (g.rows.empty()) out += "  (no rows)\n";
    }
    if (!g.note.empty()) out += "  " + g.note + "\n";
  }
  return out;
}

PTXBENCH_REGISTER_PRINTER("table", 10, TablePrinter);

}  // namespace
}  // namespace ptxbench::report
