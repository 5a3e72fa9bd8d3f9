// A table's columns, each named once beside the member of the typed row that holds it (store/
// internal): the SELECT and INSERT texts are made from the names, and rows are bound and read by
// name, never by position. The CREATE statements (and their history) are the migrations'
// (schema_migrations.cpp); a name here that the table lacks fails when the statement is prepared.
#pragma once
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "store/sqlite_statement.h"

namespace ptxbench::store_detail {

template <class Row>
struct Column {
  std::string name;
  std::function<void(sqlite::Statement&, int parameter, const Row&)> bind;
  // false: the stored value is malformed (a JSON column's text that is not JSON)
  std::function<bool(const sqlite::Statement&, int column, Row&)> read;
  std::string label;  // what a malformed value is called in the error ("config", "extraction")
};

template <class Row>
class Columns {
 public:
  // A nameless column (Make::none, a member that is no column) is left out.
  Columns(std::string table, std::vector<Column<Row>> columns) : table_(std::move(table)) {
    for (auto& c : columns)
      if (!c.name.empty()) columns_.push_back(std::move(c));
  }

  const std::string& table() const { return table_; }

  // These columns without `names` (an INSERT leaves AUTOINCREMENT keys to SQLite).
  Columns without(std::initializer_list<std::string_view> names) const {
    for (auto n : names) find(n);
    std::vector<Column<Row>> kept;
    for (const auto& c : columns_) {
      bool drop = false;
      for (auto n : names) drop = drop || c.name == n;
      if (!drop) kept.push_back(c);
    }
    return Columns(table_, std::move(kept));
  }
  // Only `names`, in that order.
  Columns only(std::initializer_list<std::string_view> names) const {
    std::vector<Column<Row>> kept;
    for (auto n : names) kept.push_back(find(n));
    return Columns(table_, std::move(kept));
  }

  // Those whose name `keep` accepts, in this order.
  Columns filtered(const std::function<bool(const std::string& name)>& keep) const {
    std::vector<Column<Row>> kept;
    for (const auto& c : columns_)
      if (keep(c.name)) kept.push_back(c);
    return Columns(table_, std::move(kept));
  }

  // "a, b, c", each prefixed with `alias.` when one is given.
  std::string list(std::string_view alias = {}) const {
    std::string s;
    for (const auto& c : columns_)
      s += (s.empty() ? "" : ", ") + (alias.empty() ? "" : std::string(alias) + ".") + c.name;
    return s;
  }
  // "SELECT a, b FROM table " + rest
  std::string select_sql(const std::string& rest) const { return "SELECT " + list() + " FROM " + table_ + " " + rest; }
  // "<verb> INTO table (a, b) VALUES (:a, :b)"; verb: INSERT, INSERT OR REPLACE, INSERT OR IGNORE
  std::string insert_sql(const std::string& verb = "INSERT") const {
    std::string values;
    for (const auto& c : columns_) values += (values.empty() ? ":" : ", :") + c.name;
    return verb + " INTO " + table_ + " (" + list() + ") VALUES (" + values + ")";
  }

  // Binds every column to its `:name` parameter.
  void bind(sqlite::Statement& st, const Row& row) const {
    for (const auto& c : columns_) {
      const int p = st.parameter(":" + c.name);
      if (p == 0) throw Error("store: the statement on " + table_ + " has no parameter :" + c.name);
      c.bind(st, p, row);
    }
  }
  // Reads every column of these that the statement returns, by name. A malformed value: false, and
  // its column's label in *bad (the first one).
  bool read(const sqlite::Statement& st, Row* row, std::string* bad) const {
    bool ok = true;
    for (const auto& c : columns_) {
      const int i = st.column(c.name);
      if (i < 0) continue;
      if (!c.read(st, i, *row) && ok) ok = false, *bad = c.label;
    }
    return ok;
  }

 private:
  const Column<Row>& find(std::string_view name) const {
    for (const auto& c : columns_)
      if (c.name == name) return c;
    throw Error("store: table " + table_ + " has no column " + std::string(name));
  }

  std::string table_;
  std::vector<Column<Row>> columns_;
};

// Column makers over a member of Row: `using C = Make<TurnRow>; C::text("phase", &TurnRow::phase)`.
// (Row is the class's parameter, so a member of a base of Row converts.)
template <class Row>
struct Make {
  static Column<Row> text(std::string name, std::string Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.text(c), true; }, ""};
  }
  static Column<Row> opt_text(std::string name, std::optional<std::string> Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) {
              r.*m = st.is_null(c) ? std::nullopt : std::optional<std::string>(st.text(c));
              return true;
            },
            ""};
  }
  // TEXT holding bytes that need not be UTF-8 (sources, replies, feedback) as a BLOB.
  static Column<Row> blob(std::string name, std::string Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind_blob(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.blob(c), true; }, ""};
  }
  static Column<Row> integer(std::string name, int Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = static_cast<int>(st.integer(c)), true; },
            ""};
  }
  static Column<Row> integer(std::string name, long long Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.integer(c), true; }, ""};
  }
  static Column<Row> opt_integer(std::string name, std::optional<long long> Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.opt_integer(c), true; }, ""};
  }
  static Column<Row> boolean(std::string name, bool Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.integer(c) != 0, true; }, ""};
  }
  static Column<Row> opt_boolean(std::string name, std::optional<bool> Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) {
              r.*m = st.is_null(c) ? std::nullopt : std::optional<bool>(st.integer(c) != 0);
              return true;
            },
            ""};
  }
  static Column<Row> real(std::string name, double Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.real(c), true; }, ""};
  }
  static Column<Row> opt_real(std::string name, std::optional<double> Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, r.*m); },
            [m](const sqlite::Statement& st, int c, Row& r) { return r.*m = st.opt_real(c), true; }, ""};
  }
  // JSON stored as its text (dump()); `label` names it in the error a malformed one gives.
  static Column<Row> json_text(std::string name, json Row::*m, const char* label) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, (r.*m).dump()); },
            [m](const sqlite::Statement& st, int c, Row& r) {
              r.*m = json::parse(st.text(c), nullptr, false);
              return !(r.*m).is_discarded();
            },
            label};
  }
  // The same, the error's label being the column's name without "_json" ("context_json": "context").
  static Column<Row> json_text(std::string name, json Row::*m) {
    std::string label = name.size() > 5 && name.ends_with("_json") ? name.substr(0, name.size() - 5) : name;
    return json_text(std::move(name), m, label.c_str());
  }
  // JSON stored as its text, read leniently: a malformed one reads as {} (the Fixit tables).
  static Column<Row> json_or_empty(std::string name, json Row::*m) {
    return {std::move(name), [m](sqlite::Statement& st, int p, const Row& r) { st.bind(p, (r.*m).dump()); },
            [m](const sqlite::Statement& st, int c, Row& r) {
              json j = json::parse(st.text(c), nullptr, false);
              r.*m = j.is_discarded() ? json::object() : std::move(j);
              return true;
            },
            ""};
  }
  // A member that is no column (the row's in-memory part): a nameless column, which Columns leaves out.
  template <class M>
  static Column<Row> none(std::string, M Row::*) {
    return {};
  }
  // A list stored comma-separated (no element holds a comma); empty elements are dropped on reading.
  static Column<Row> comma_list(std::string name, std::vector<std::string> Row::*m) {
    return {std::move(name),
            [m](sqlite::Statement& st, int p, const Row& r) {
              std::string s;
              for (const auto& x : r.*m) s += (s.empty() ? "" : ",") + x;
              st.bind(p, s);
            },
            [m](const sqlite::Statement& st, int c, Row& r) {
              const std::string s = st.text(c);
              (r.*m).clear();
              for (size_t a = 0; a < s.size();) {
                size_t b = s.find(',', a);
                if (b == std::string::npos) b = s.size();
                if (b > a) (r.*m).push_back(s.substr(a, b - a));
                a = b + 1;
              }
              return true;
            },
            ""};
  }
};

}  // namespace ptxbench::store_detail
