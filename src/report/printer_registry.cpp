// The registry of report printers (--format NAME): registration, the formats offered, printing a report.
#include <algorithm>
#include <map>

#include "core/error.h"
#include "report/printer.h"

namespace ptxbench::report {
namespace {

struct PrinterEntry {
  std::string name;
  int rank = 0;
  PrinterFactory make;
  bool needs_turns = false;
};

std::vector<PrinterEntry>& printer_entries() {
  static std::vector<PrinterEntry> r;
  return r;
}

std::vector<const PrinterEntry*> offered(bool with_turns) {
  std::vector<const PrinterEntry*> out;
  for (const auto& e : printer_entries())
    if (with_turns || !e.needs_turns) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(),
                   [](const PrinterEntry* a, const PrinterEntry* b) { return a->rank < b->rank; });
  return out;
}

}  // namespace

PrinterRegistrar::PrinterRegistrar(const std::string& name, int rank, PrinterFactory factory) {
  const bool needs_turns = factory()->needs_turn_detail();
  printer_entries().push_back({name, rank, std::move(factory), needs_turns});
}

std::vector<std::string> format_names(bool with_turns) {
  std::vector<std::string> out;
  for (const PrinterEntry* e : offered(with_turns)) out.push_back(e->name);
  return out;
}

std::string format_list(bool with_turns) {
  const auto names = format_names(with_turns);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::unique_ptr<Printer> make_printer(const std::string& name, bool with_turns) {
  std::string names;
  for (const PrinterEntry* e : offered(with_turns)) {
    if (e->name == name) return e->make();
    names += (names.empty() ? "" : ", ") + e->name;
  }
  throw InputError("--format: '" + name + "' (use one of " + names + ")");
}

std::string print_report(const std::string& format, const Report& r) {
  return make_printer(format, false)->print(r, nullptr);
}

}  // namespace ptxbench::report
