// Small RAII helpers over the SQLite C API for the store's own files: a prepared statement with
// typed binds and column reads (by name: `:name` parameters and result columns), and a transaction
// that rolls back unless committed. Only src/store includes it: the rest of the project reads and
// writes the workspace through the store's typed rows.
#pragma once
#include <sqlite3.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxbench::sqlite {

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) { rc_ = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr); }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() const { return st_; }

  // The 1-based index of the parameter `:name`, 0 when the statement has none of that name.
  int parameter(std::string_view name) const { return sqlite3_bind_parameter_index(st_, std::string(name).c_str()); }
  // The 0-based index of the result column `name` (its alias, else its name), -1 when none.
  int column(std::string_view name) const {
    if (names_.empty())
      for (int i = 0, n = sqlite3_column_count(st_); i < n; ++i) names_.emplace_back(sqlite3_column_name(st_, i));
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return static_cast<int>(i);
    return -1;
  }
  // Binds `:name`: bind(":status", "running").
  template <class T>
  Statement& bind(std::string_view name, const T& v) {
    return bind(parameter(name), v);
  }

  // Binds are 1-based, as in SQLite.
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, const char* v) { return bind(i, std::string(v)); }
  Statement& bind(int i, long long v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  Statement& bind(int i, int v) { return bind(i, static_cast<long long>(v)); }
  Statement& bind(int i, bool v) { return bind(i, v ? 1LL : 0LL); }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(st_, i, v);
    return *this;
  }
  Statement& bind_blob(int i, const std::string& bytes) {
    sqlite3_bind_blob(st_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    return *this;
  }
  template <class T>
  Statement& bind(int i, const std::optional<T>& v) {
    if (v) return bind(i, *v);
    sqlite3_bind_null(st_, i);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(st_, i);
    return *this;
  }

  int step() { return sqlite3_step(st_); }  // SQLITE_ROW, SQLITE_DONE or an error
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }

  // Column reads (0-based, as in SQLite).
  bool is_null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, c))) : std::string();
  }
  std::string blob(int c) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(st_, c));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(st_, c))) : std::string();
  }
  long long integer(int c) const { return sqlite3_column_int64(st_, c); }
  double real(int c) const { return sqlite3_column_double(st_, c); }
  std::optional<long long> opt_integer(int c) const { return is_null(c) ? std::nullopt : std::optional(integer(c)); }
  std::optional<double> opt_real(int c) const { return is_null(c) ? std::nullopt : std::optional(real(c)); }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  int rc_;
  mutable std::vector<std::string> names_;  // result column names, read at the first column() call
};

// Bytes to bind as a BLOB (not TEXT) through Params.
struct Blob {
  const std::string& bytes;
};

// Binds parameters 1, 2, 3, ... in order: `Params(st) << a << b << Blob{c};`.
class Params {
 public:
  explicit Params(Statement& st) : st_(st) {}
  template <class T>
  Params& operator<<(const T& v) {
    st_.bind(next_++, v);
    return *this;
  }
  Params& operator<<(const Blob& b) {
    st_.bind_blob(next_++, b.bytes);
    return *this;
  }

 private:
  Statement& st_;
  int next_ = 1;
};

// BEGIN IMMEDIATE on construction (the write lock up front, so two writers never deadlock);
// ROLLBACK on destruction unless commit() succeeded.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {
    began_ = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  ~Transaction() {
    if (began_ && !committed_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  bool began() const { return began_; }
  bool commit() {
    committed_ = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    return committed_;
  }

 private:
  sqlite3* db_;
  bool began_ = false, committed_ = false;
};

}  // namespace ptxbench::sqlite
