// Paths to the hand-made report fixtures (tests/fixtures/report) and small lookups over a report.
#pragma once
#include <filesystem>
#include <string>

#include "metrics/load_jsonl.h"
#include "report/result_schema.h"

namespace ptxbench::test {

inline std::filesystem::path report_fixture(const std::string& name) {
  return std::filesystem::path(PTXBENCH_SOURCE_DIR) / "tests" / "fixtures" / "report" / name;
}

inline metrics::TurnSet load_fixture(const std::string& name, bool detail = false) {
  metrics::LoadOptions o;
  o.with_detail = detail;
  return metrics::load_jsonl(report_fixture(name), o);
}

// The row of `table` whose fields equal the given values; fails the test when there is not exactly one.
inline size_t row_where(const report::Table& t, const std::vector<std::pair<std::string, report::Value>>& where) {
  size_t found = t.rows.size(), n = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    bool ok = true;
    for (const auto& [f, v] : where) ok = ok && t.at(i, f) == v;
    if (ok) found = i, ++n;
  }
  if (n != 1) throw std::runtime_error("table " + t.name + ": " + std::to_string(n) + " rows match");
  return found;
}

inline double num(const report::Value& v) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const long long* i = std::get_if<long long>(&v)) return static_cast<double>(*i);
  throw std::runtime_error("not a number: '" + report::value_text(v) + "'");
}

}  // namespace ptxbench::test
