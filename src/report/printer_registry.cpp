#include <algorithm>
#include <map>

#include "core/error.h"
#include "report/printer.h"

namespace ptxbench::report {
namespace {

struct Entry {
  std::string name;
  int rank = 0;
  PrinterFactory make;
  bool needs_turns = false;
};

std::vector<Entry>& registry() {
  static std::vector<Entry> r;
  return r;
}

std::vector<const Entry*> offered(bool with_turns) {
  std::vector<const Entry*> out;
  for (const auto& e : registry())
    if (with_turns || !e.needs_turns) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) { return a->rank < b->rank; });
  return out;
}

}  // namespace

PrinterRegistrar::PrinterRegistrar(const std::string& name, int rank, PrinterFactory factory) {
  const bool needs_turns = factory()->needs_turn_detail();
  registry().push_back({name, rank, std::move(factory), needs_turns});
}

std::vector<std::string> format_names(bool with_turns) {
  std::vector<std::string> out;
  for (const Entry* e : offered(with_turns)) out.push_back(e->name);
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
  for (const Entry* e : offered(with_turns)) {
    if (e->name == name) return e->make();
    names += (names.empty() ? "" : ", ") + e->name;
  }
  throw InputError("--format: '" + name + "' (use one of " + names + ")");
}

std::string print_report(const std::string& format, const Report& r) {
  return make_printer(format, false)->print(r, nullptr);
}

}  // namespace ptxbench::report
