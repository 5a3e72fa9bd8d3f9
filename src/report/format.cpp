#include "core/error.h"
#include "report/printers.h"

namespace ptxbench::report {

std::string_view to_string(Format f) {
  switch (f) {
    case Format::table: return "table";
    case Format::md: return "md";
    case Format::csv: return "csv";
    case Format::json: return "json";
    case Format::jsonl: return "jsonl";
    case Format::html: return "html";
  }
  return "table";
}

Format parse_format(const std::string& s, const std::vector<Format>& allowed) {
  std::string names;
  for (Format f : allowed) {
    if (to_string(f) == s) return f;
    names += (names.empty() ? "" : ", ") + std::string(to_string(f));
  }
  throw InputError("--format: '" + s + "' (use one of " + names + ")");
}

Report select_tables(const Report& r, const std::vector<std::string>& names) {
  if (names.empty()) return r;
  Report out;
  out.format = r.format, out.meta = r.meta;
  for (const auto& n : names) {
    const Table* t = r.table(n);
    if (!t) {
      std::string have;
      for (const auto& x : r.tables) have += (have.empty() ? "" : ", ") + x.name;
      throw InputError("--table: no table '" + n + "' (this report has: " + have + ")");
    }
    out.tables.push_back(*t);
  }
  return out;
}

}  // namespace ptxbench::report
