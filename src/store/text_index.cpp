// An in-memory BM25 full-text index over SQLite's FTS5, for the repair notes' retrieval.
#include "store/text_index.h"

#include <sqlite3.h>

#include "core/error.h"
#include "store/sqlite_statement.h"

namespace ptxbench {

struct TextIndex::Db {
  sqlite3* db = nullptr;
  ~Db() { sqlite3_close(db); }
};

TextIndex::TextIndex(std::string what) : db_(std::make_unique<Db>()), what_(std::move(what)) {
  if (sqlite3_open(":memory:", &db_->db) != SQLITE_OK) throw InputError(what_ + ": cannot open an in-memory index");
  char* msg = nullptr;
  if (sqlite3_exec(db_->db, "CREATE VIRTUAL TABLE docs USING fts5(primary_text, secondary_text, doc UNINDEXED)",
                   nullptr, nullptr, &msg) != SQLITE_OK) {
    const std::string m = msg ? msg : "unknown error";
    sqlite3_free(msg);
    throw InputError(what_ + ": the index needs SQLite's FTS5: " + m);
  }
}

TextIndex::~TextIndex() = default;

void TextIndex::add(size_t document, const std::string& primary, const std::string& secondary,
                    const std::string& name) {
  sqlite::Statement st(db_->db, "INSERT INTO docs (primary_text, secondary_text, doc) VALUES (?, ?, ?)");
  st.bind(1, primary).bind(2, secondary).bind(3, static_cast<long long>(document));
  if (!st.ok() || sqlite3_step(st.get()) != SQLITE_DONE)
    throw InputError(what_ + ": indexing " + name + ": " + sqlite3_errmsg(db_->db));
}

std::vector<TextMatch> TextIndex::search(const std::vector<std::string>& terms, double primary_weight) const {
  std::vector<TextMatch> out;
  std::string match;
  for (const auto& t : terms) match += (match.empty() ? "\"" : " OR \"") + t + "\"";
  if (match.empty()) return out;
  const std::string sql = "SELECT doc, bm25(docs, " + std::to_string(primary_weight) +
                          ", 1.0) AS s FROM docs WHERE docs MATCH ? "
                          "ORDER BY s, doc";
  sqlite::Statement st(db_->db, sql.c_str());
  st.bind(1, match);
  while (sqlite3_step(st.get()) == SQLITE_ROW)
    out.push_back({static_cast<size_t>(sqlite3_column_int64(st.get(), 0)), -sqlite3_column_double(st.get(), 1)});
  return out;
}

}  // namespace ptxbench
