#include "report/printers.h"

namespace ptxbench::report {

std::string print_json(const Report& r) {
  return to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string print_jsonl(const Report& r) {
  std::string out;
  for (const auto& t : r.tables)
    for (const auto& row : t.rows) {
      json j = {{"table", t.name}};
      for (size_t i = 0; i < row.size(); ++i) j[t.fields[i].name] = to_json(row[i]);
      out += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    }
  return out;
}

}  // namespace ptxbench::report
