// The jsonl report format: one line per row, named by its table.
#include "report/printer.h"

namespace ptxbench::report {
namespace {

// One line per row: {"table": name, field: value, ...}.
class JsonlPrinter final : public Printer {
 public:
  std::string print(const Report& r, const metrics::TurnSet*) const override {
    std::string out;
    for (const auto& t : r.tables)
      for (const auto& row : t.rows) {
        json j = {{"table", t.name}};
        for (size_t i = 0; i < row.size(); ++i) j[t.fields[i].name] = to_json(row[i]);
        out += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      }
    return out;
  }
};

PTXBENCH_REGISTER_PRINTER("jsonl", 50, JsonlPrinter);

}  // namespace
}  // namespace ptxbench::report
