// The one result schema every format prints: named tables of typed fields and rows, to JSON.
#include "report/result_schema.h"

#include <charconv>
#include <cmath>

#include "core/error.h"

namespace ptxbench::report {

std::string_view to_string(FieldType t) {
  switch (t) {
    case FieldType::string: return "string";
    case FieldType::integer: return "integer";
    case FieldType::number: return "number";
    case FieldType::boolean: return "boolean";
  }
  return "string";
}

size_t Table::column(std::string_view field) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return i;
  throw Error("table '" + name + "' has no field '" + std::string(field) + "'");
}

void Table::add(std::vector<Value> row) {
  if (row.size() != fields.size())
    throw Error("table '" + name + "': a row of " + std::to_string(row.size()) + " values for " +
                std::to_string(fields.size()) + " fields");
  for (size_t i = 0; i < row.size(); ++i) {
    const auto& v = row[i];
    if (std::holds_alternative<std::monostate>(v)) continue;
    bool ok = false;
    switch (fields[i].type) {
      case FieldType::string: ok = std::holds_alternative<std::string>(v); break;
      case FieldType::integer: ok = std::holds_alternative<long long>(v); break;
      case FieldType::number: ok = std::holds_alternative<double>(v) || std::holds_alternative<long long>(v); break;
      case FieldType::boolean: ok = std::holds_alternative<bool>(v); break;
    }
    if (!ok) throw Error("table '" + name + "': field '" + fields[i].name + "' given a value of the wrong type");
    if (const double* d = std::get_if<double>(&v); d && !std::isfinite(*d))
      throw Error("table '" + name + "': field '" + fields[i].name + "' given a non-finite number");
  }
  rows.push_back(std::move(row));
}

const Table* Report::table(std::string_view name) const {
  for (const auto& t : tables)
    if (t.name == name) return &t;
  return nullptr;
}

Table& Report::add(Table t) {
  tables.push_back(std::move(t));
  return tables.back();
}

Value opt(const std::optional<double>& v) { return v ? Value(*v) : Value(); }
Value opt(const std::optional<long long>& v) { return v ? Value(*v) : Value(); }
Value opt(const std::optional<bool>& v) { return v ? Value(*v) : Value(); }

json to_json(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<long long>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return nullptr;
}

std::string number_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string value_text(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (const auto* i = std::get_if<long long>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return number_text(*d);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return "";
}

json to_json(const Table& t) {
  json fields = json::array();
  for (const auto& f : t.fields)
    fields.push_back(
        {{"name", f.name}, {"type", std::string(to_string(f.type))}, {"unit", f.unit}, {"description", f.description}});
  json rows = json::array();
  for (const auto& row : t.rows) {
    json r = json::object();
    for (size_t i = 0; i < row.size(); ++i) r[t.fields[i].name] = to_json(row[i]);
    rows.push_back(std::move(r));
  }
  return {{"name", t.name}, {"title", t.title}, {"description", t.description}, {"fields", fields}, {"rows", rows}};
}

json to_json(const Report& r) {
  json tables = json::array();
  for (const auto& t : r.tables) tables.push_back(to_json(t));
  return {{"format", r.format}, {"meta", r.meta}, {"tables", tables}};
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
