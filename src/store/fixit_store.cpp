// The Fixit store: builds, items, attempts and records in the workspace database, thread-safe.
#include "store/fixit_store.h"

#include <sqlite3.h>

#include "core/timestamp.h"
#include "store/content_tables.h"
#include "store/fixit_columns.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;
using sqlite::Transaction;
using store_detail::sql_error;

// Reads a row by column name (a malformed JSON column reads as {}).
template <class Row>
Row read(const store_detail::Columns<Row>& columns, const Statement& st) {
  Row r;
  std::string unused;
  columns.read(st, &r, &unused);
  return r;
}

}  // namespace

bool FixitStore::has_builds(const std::filesystem::path& db_path) {
  sqlite3* db = nullptr;
  bool found = false;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    Statement st(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fixit_builds'");
    if (st.ok() && st.step() == SQLITE_ROW) {
      Statement any(db, "SELECT 1 FROM fixit_builds LIMIT 1");
      found = any.ok() && any.step() == SQLITE_ROW;
    }
  }
  sqlite3_close(db);
  return found;
}

FixitStore::FixitStore(const std::filesystem::path& db_path) : runs_(db_path) {
  status_ = runs_.status();
  if (!status_.ok) return;
  h_ = runs_.evaluations().handle();
  if (auto s = migrate_schema(h_, SchemaPart::fixit, db_path, "fixit store schema: "); !s.ok) status_ = s;
}

DbStatus FixitStore::open_build(const FixitBuildRow& wanted, FixitBuildRow* actual, bool* created) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning build transaction");
  const std::string now = utc_timestamp_ms();
  bool found = false;
  const auto& builds = store_detail::fixit_build_columns();
  {
    Statement st(h_, builds.select_sql("WHERE id = :id").c_str());
    if (!st.ok()) return sql_error(h_, "preparing build lookup");
    st.bind(":id", wanted.id);
    if (st.step() == SQLITE_ROW) *actual = read(builds, st), found = true;
  }
  if (found) {
    Statement st(h_, "UPDATE fixit_builds SET updated_at = :now, status = 'running', stop_reason = '' WHERE id = :id");
    if (!st.ok()) return sql_error(h_, "preparing build update");
    st.bind(":now", now).bind(":id", wanted.id);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "updating build");
    actual->status = "running";
    actual->updated_at = now;
  } else {
    Statement st(h_, builds.insert_sql().c_str());
    if (!st.ok()) return sql_error(h_, "preparing build insert");
    FixitBuildRow row = wanted;
    row.created_at = row.updated_at = now;
    row.status = "running", row.stop_reason = "";
    builds.bind(st, row);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting build");
    *actual = wanted;
    actual->created_at = actual->updated_at = now;
    actual->status = "running";
  }
  if (!tx.commit()) return sql_error(h_, "committing build");
  *created = !found;
  return {};
}

DbStatus FixitStore::finish_build(const std::string& id, const std::string& status, const std::string& stop_reason,
                                  const json& summary) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(
      h_,
      "UPDATE fixit_builds SET updated_at = :now, status = :status, stop_reason = :reason, summary_json = :summary "
      "WHERE id = :id");
  if (!st.ok()) return sql_error(h_, "preparing build finish");
  st.bind(":now", utc_timestamp_ms())
      .bind(":status", status)
      .bind(":reason", stop_reason)
      .bind(":summary", summary.dump());
  st.bind(":id", id);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "finishing build");
  return {};
}

DbStatus FixitStore::get_build(const std::string& id, FixitBuildRow* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& builds = store_detail::fixit_build_columns();
  Statement st(h_, builds.select_sql("WHERE id = :id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing build read");
  st.bind(":id", id);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no Fixit build '" + id + "'");
  *out = read(builds, st);
  return {};
}

DbStatus FixitStore::list_builds(std::vector<FixitBuildRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& builds = store_detail::fixit_build_columns();
  Statement st(h_, builds.select_sql("ORDER BY created_at DESC, id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing build list");
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read(builds, st));
  return {};
}

DbStatus FixitStore::insert_items(const std::vector<FixitItemRow>& items) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning item transaction");
  const auto& columns = store_detail::fixit_item_columns();
  Statement st(h_, columns.insert_sql().c_str());
  if (!st.ok()) return sql_error(h_, "preparing item insert");
  const std::string now = utc_timestamp_ms();
  for (const auto& i : items) {
    st.reset();
    FixitItemRow row = i;
    row.updated_at = now;
    columns.bind(st, row);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting item " + i.item_key);
  }
  if (!tx.commit()) return sql_error(h_, "committing items");
  return {};
}

DbStatus FixitStore::load_items(const std::string& build_id, std::vector<FixitItemRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& columns = store_detail::fixit_item_columns();
  Statement st(h_, columns.select_sql("WHERE build_id = :build_id ORDER BY problem, ordinal, item_key").c_str());
  if (!st.ok()) return sql_error(h_, "preparing item read");
  st.bind(":build_id", build_id);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read(columns, st));
  return {};
}

DbStatus FixitStore::set_item_status(const std::string& build_id, const std::string& key, const std::string& status,
                                     const std::string& reason, const std::string& fix_source) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_,
               "UPDATE fixit_items SET status = :status, reason = :reason, fix_source = :fix_source, updated_at = :now "
               "WHERE build_id = :build_id AND item_key = :key");
  if (!st.ok()) return sql_error(h_, "preparing item update");
  st.bind(":status", status).bind(":reason", reason).bind(":fix_source", fix_source).bind(":now", utc_timestamp_ms());
  st.bind(":build_id", build_id).bind(":key", key);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating item " + key);
  return {};
}

DbStatus FixitStore::insert_attempt(FixitAttemptRow& a) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning attempt transaction");
  std::string request_sha, response_sha, system_sha;
  if (auto s = store_detail::put_blob(h_, a.request_bytes, &request_sha); !s.ok) return s;
  if (auto s = store_detail::put_blob(h_, a.response_bytes, &response_sha); !s.ok) return s;
  if (auto s = store_detail::put_blob(h_, a.system_text, &system_sha); !s.ok) return s;
  if (!a.candidate.empty()) {
    std::string sha;
    if (auto s = store_detail::put_candidate(h_, a.candidate, &sha); !s.ok) return s;
    a.candidate_sha256 = sha;
  }
  const std::string now = utc_timestamp_ms();
  const auto& columns = store_detail::fixit_attempt_columns();
  Statement st(h_, columns.insert_sql().c_str());
  if (!st.ok()) return sql_error(h_, "preparing attempt insert");
  FixitAttemptRow row = a;
  row.request_sha256 = request_sha, row.response_sha256 = response_sha, row.system_sha256 = system_sha;
  row.created_at = row.updated_at = now;
  columns.bind(st, row);
  if (st.step() != SQLITE_DONE)
    return sql_error(h_, "inserting attempt " + a.item_key + "/" + std::to_string(a.attempt));
  if (!tx.commit()) return sql_error(h_, "committing attempt");
  return {};
}

DbStatus FixitStore::judge_attempt(FixitAttemptRow& a, const EvaluationRecord* record) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning judgment transaction");
  if (record) {
    long long id = 0;
    if (auto s = runs_.evaluations().insert(*record, &id); !s.ok) return s;
    a.evaluation_id = id;
  }
  Statement st(h_,
               "UPDATE fixit_attempts SET phase = :phase, evaluation_id = :evaluation_id, verdict = :verdict, "
               "accepted = :accepted, why = :why, explanation = :explanation, feedback = :feedback, updated_at = :now "
               "WHERE build_id = :build_id AND item_key = :item_key AND attempt = :attempt");
  if (!st.ok()) return sql_error(h_, "preparing judgment update");
  st.bind(":phase", a.phase)
      .bind(":evaluation_id", a.evaluation_id)
      .bind(":verdict", a.verdict)
      .bind(":accepted", a.accepted);
  st.bind(":why", a.why)
      .bind_blob(st.parameter(":explanation"), a.explanation)
      .bind_blob(st.parameter(":feedback"), a.feedback);
  st.bind(":now", utc_timestamp_ms())
      .bind(":build_id", a.build_id)
      .bind(":item_key", a.item_key)
      .bind(":attempt", a.attempt);
  if (st.step() != SQLITE_DONE)
    return sql_error(h_, "storing the judgment of " + a.item_key + "/" + std::to_string(a.attempt));
  if (!tx.commit()) return sql_error(h_, "committing judgment");
  return {};
}

DbStatus FixitStore::load_attempts(const std::string& build_id, const std::string& key,
                                   std::vector<FixitAttemptRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& columns = store_detail::fixit_attempt_columns();
  Statement st(h_, columns.select_sql("WHERE build_id = :build_id AND item_key = :key ORDER BY attempt").c_str());
  if (!st.ok()) return sql_error(h_, "preparing attempt read");
  st.bind(":build_id", build_id).bind(":key", key);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read(columns, st));
  for (auto& a : *out)
    if (a.candidate_sha256)
      if (auto s = store_detail::get_candidate(h_, *a.candidate_sha256, &a.candidate); !s.ok) return s;
  return {};
}

DbStatus FixitStore::load_all_attempts(const std::string& build_id, std::vector<FixitAttemptRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& columns = store_detail::fixit_attempt_columns();
  Statement st(h_, columns.select_sql("WHERE build_id = :build_id ORDER BY item_key, attempt").c_str());
  if (!st.ok()) return sql_error(h_, "preparing attempt read");
  st.bind(":build_id", build_id);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read(columns, st));
  return {};
}

DbStatus FixitStore::store_record(const std::string& build_id, const std::string& key, const json& record,
                                  const std::string& fix_source) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning record transaction");
  const std::string now = utc_timestamp_ms();
  {
    Statement st(h_,
                 "INSERT OR REPLACE INTO fixit_records (build_id, item_key, record_json, in_dataset, excluded_reason, "
                 "created_at) "
                 "VALUES (:build_id, :key, :record, 1, '', :now)");
    if (!st.ok()) return sql_error(h_, "preparing record insert");
    st.bind(":build_id", build_id)
        .bind(":key", key)
        .bind(":record", record.dump(-1, ' ', false, json::error_handler_t::replace));
    st.bind(":now", now);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "storing record " + key);
  }
  {
    Statement st(h_,
                 "UPDATE fixit_items SET status = 'record', reason = '', fix_source = :fix_source, updated_at = :now "
                 "WHERE build_id = :build_id AND item_key = :key");
    if (!st.ok()) return sql_error(h_, "preparing item update");
    st.bind(":fix_source", fix_source).bind(":now", now).bind(":build_id", build_id).bind(":key", key);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "updating item " + key);
  }
  if (!tx.commit()) return sql_error(h_, "committing record");
  return {};
}

DbStatus FixitStore::load_records(const std::string& build_id, std::vector<FixitRecordRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& columns = store_detail::fixit_record_columns();
  Statement st(
      h_, ("SELECT " + columns.list("r") +
           " FROM fixit_records r "
           "JOIN fixit_items i ON i.build_id = r.build_id AND i.item_key = r.item_key WHERE r.build_id = :build_id "
           "ORDER BY i.problem, i.ordinal, r.item_key")
              .c_str());
  if (!st.ok()) return sql_error(h_, "preparing record read");
  st.bind(":build_id", build_id);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read(columns, st));
  return {};
}

DbStatus FixitStore::set_record_inclusion(const std::string& build_id, const std::string& key, bool in_dataset,
                                          const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(
      h_,
      "UPDATE fixit_records SET in_dataset = :in_dataset, excluded_reason = :reason WHERE build_id = :build_id "
      "AND item_key = :key");
  if (!st.ok()) return sql_error(h_, "preparing record update");
  st.bind(":in_dataset", in_dataset).bind(":reason", reason).bind(":build_id", build_id).bind(":key", key);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating record " + key);
  return {};
}

DbStatus FixitStore::evaluation(long long id, EvaluationRecord* out) {
  std::lock_guard lock(mutex_);
  StoredRecord r;
  if (auto s = runs_.evaluations().get(id, &r); !s.ok) return s;
  *out = std::move(r.record);
  return {};
}

DbStatus FixitStore::candidate_source(const std::string& sha256, std::string* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  return store_detail::get_candidate(h_, sha256, out);
}

}  // namespace ptxbench
