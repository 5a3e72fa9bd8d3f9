// The json report format: the result schema itself, indented.
#include "report/printer.h"

namespace ptxbench::report {
namespace {

// The schema itself: to_json(report), indented.
class JsonPrinter final : public Printer {
 public:
  std::string print(const Report& r, const metrics::TurnSet*) const override {
    return to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  }
};

PTXBENCH_REGISTER_PRINTER("json", 40, JsonPrinter);

}  // namespace
}  // namespace ptxbench::report
