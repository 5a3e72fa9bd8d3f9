// A report format (`--format NAME`): one file in src/report/printers/ prints the whole result
// schema (result_schema.h) and registers itself by name, as the model clients do
// (agent/clients/model_client.h). Every command that prints a report (report, results, fixit stats)
// offers every registered format it can feed, and lists them in its help, so a new format is one file.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "metrics/turn_model.h"
#include "report/result_schema.h"

namespace ptxbench::report {

class Printer {
 public:
  virtual ~Printer() = default;
  // The format needs the turns the report was built from, loaded with their drill-down detail (code,
  // feedback, verdict reason, per-shape timings). Commands without turns (results, fixit stats) do
  // not offer it.
  virtual bool needs_turn_detail() const { return false; }
  // Non-empty: the format prints the whole report, so --table does not apply; says why.
  virtual std::string whole_report_reason() const { return ""; }
  // Runs before the inputs are read, so that a missing asset fails at once (html: plotly.min.js).
  virtual void prepare() {}
  // `turns`: the turns the report was built from (nullptr where the command has none).
  virtual std::string print(const Report& r, const metrics::TurnSet* turns) const = 0;
};

using PrinterFactory = std::function<std::unique_ptr<Printer>()>;

struct PrinterRegistrar {
  // `rank`: where the format comes in the lists of formats (help texts, errors), lowest first.
  PrinterRegistrar(const std::string& name, int rank, PrinterFactory factory);
};

// The formats a command offers, in rank order; `with_turns`: also those that need the turns.
std::vector<std::string> format_names(bool with_turns);
// "table, md, csv, json, jsonl or html", for a command's help.
std::string format_list(bool with_turns);
// InputError naming the offered formats when `name` is not one of them.
std::unique_ptr<Printer> make_printer(const std::string& name, bool with_turns);
// A report that needs no turns, printed in `format` (tests, the commands' one-record views).
std::string print_report(const std::string& format, const Report& r);

}  // namespace ptxbench::report

#define PTXBENCH_REGISTER_PRINTER_CAT2(a, b) a##b
#define PTXBENCH_REGISTER_PRINTER_CAT(a, b) PTXBENCH_REGISTER_PRINTER_CAT2(a, b)
// In a printer's file: PTXBENCH_REGISTER_PRINTER("csv", 30, CsvPrinter);
#define PTXBENCH_REGISTER_PRINTER(name, rank, Type)                                                          \
  static ::ptxbench::report::PrinterRegistrar PTXBENCH_REGISTER_PRINTER_CAT(ptxbench_printer_, __COUNTER__)( \
      name, rank, [] { return std::unique_ptr<::ptxbench::report::Printer>(new Type()); })
