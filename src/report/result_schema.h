// The one result schema every format prints (as llama-bench and nvbench do): a report is named
// tables, each a list of typed fields and rows of values. The printers (printer.h) format the same
// fields; none computes a number of its own.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/json.h"

namespace ptxbench::report {

using Value = std::variant<std::monostate, bool, long long, double, std::string>;  // monostate: null

enum class FieldType { string, integer, number, boolean };
std::string_view to_string(FieldType t);

struct Field {
  std::string name;
  FieldType type = FieldType::string;
  std::string unit;         // "fraction", "x (library time / candidate time)", "turns", ...
  std::string description;  // one line
};

struct Table {
  std::string name, title, description;
  std::vector<Field> fields;
  std::vector<std::vector<Value>> rows;

  size_t column(std::string_view field) const;  // throws Error for a field the table lacks
  // Appends a row; throws Error when its size or a value's type does not match the fields.
  void add(std::vector<Value> row);
  const Value& at(size_t row, std::string_view field) const { return rows[row][column(field)]; }
};

struct Report {
  std::string format = "ptxbench.report/1";
  json meta = json::object();  // inputs, settings (budgets, intervals, seeds, units), generator
  std::vector<Table> tables;
  const Table* table(std::string_view name) const;
  Table& add(Table t);
};

// Value helpers.
Value opt(const std::optional<double>& v);
Value opt(const std::optional<long long>& v);
Value opt(const std::optional<bool>& v);
json to_json(const Value& v);
// Shortest text that reads back as the same double (std::to_chars); integers as integers.
std::string number_text(double v);
std::string value_text(const Value& v);  // null -> ""

json to_json(const Table& t);   // {"name","title","description","fields":[...],"rows":[{field: value}]}
json to_json(const Report& r);  // {"format","meta","tables":[...]}

// Only the named tables (InputError naming the report's tables for an unknown one); none named: all.
Report select_tables(const Report& r, const std::vector<std::string>& names);

}  // namespace ptxbench::report
