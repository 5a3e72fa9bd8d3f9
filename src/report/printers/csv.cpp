// The csv report format: each table as RFC 4180 CSV.
#include "report/printer.h"

namespace ptxbench::report {
namespace {

// RFC 4180: quote a cell holding a comma, quote, CR or LF; double the quotes inside.
std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Every table: a "table" column first, a blank line between tables.
class CsvPrinter final : public Printer {
 public:
  std::string print(const Report& r, const metrics::TurnSet*) const override;
};

std::string CsvPrinter::print(const Report& r, const metrics::TurnSet*) const {
  std::string out;
  for (const auto& t : r.tables) {
    if (!out.empty()) out += "\n";
    out += "table";
    for (const auto& f : t.fields) out += "," + cell(f.name);
    out += "\n";
    for (const auto& row : t.rows) {
      out += cell(t.name);
      for (const auto& v : row) out += "," + cell(value_text(v));
      out += "\n";
    }
  }
  return out;
}

PTXBENCH_REGISTER_PRINTER("csv", 30, CsvPrinter);

}  // namespace
}  // namespace ptxbench::report
