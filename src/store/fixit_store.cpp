#include "store/fixit_store.h"

#include <sqlite3.h>

#include "core/timestamp.h"
#include "store/content_tables.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Params;
using sqlite::Statement;
using sqlite::Transaction;
using store_detail::sql_error;

constexpr const char* kFixitSchema = R"sql(
CREATE TABLE IF NOT EXISTS fixit_builds (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,            -- running, complete, stopped
  stop_reason TEXT NOT NULL,
  recipe_name TEXT NOT NULL,
  recipe_sha256 TEXT NOT NULL,
  recipe_text TEXT NOT NULL,       -- the recipe file's bytes
  template TEXT NOT NULL,          -- fixit, kernelgen
  teacher TEXT NOT NULL,           -- PROVIDER:MODEL or ''
  config_json TEXT NOT NULL,
  summary_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS fixit_items (
  build_id TEXT NOT NULL REFERENCES fixit_builds(id),
  item_key TEXT NOT NULL,
  ordinal INTEGER NOT NULL,        -- within its problem
  problem TEXT NOT NULL,
  split TEXT NOT NULL,
  template TEXT NOT NULL,
  error_class TEXT NOT NULL,
  signature TEXT NOT NULL,
  status TEXT NOT NULL,            -- pending, record, dropped, refused, skipped
  reason TEXT NOT NULL,
  kernel_hash TEXT NOT NULL,
  fix_source TEXT NOT NULL,        -- trajectory, teacher, ''
  source_json TEXT NOT NULL,
  context_json TEXT NOT NULL,
  error_json TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (build_id, item_key)
);
CREATE TABLE IF NOT EXISTS fixit_attempts (
  build_id TEXT NOT NULL,
  item_key TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  kind TEXT NOT NULL,              -- trajectory, teacher, explain
  teacher_index INTEGER NOT NULL,
  phase TEXT NOT NULL,             -- replied, judged, done
  prompt_version TEXT NOT NULL,
  source_turn TEXT NOT NULL,
  model TEXT NOT NULL, outcome TEXT NOT NULL, finish_reason TEXT NOT NULL, error TEXT NOT NULL,
  http_status INTEGER NOT NULL,
  seconds REAL NOT NULL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
  cost_usd REAL,
  request_json TEXT NOT NULL,
  request_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  response_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  system_sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  content BLOB NOT NULL,
  reasoning BLOB NOT NULL,
  candidate_sha256 TEXT REFERENCES candidates(sha256),
  evaluation_id INTEGER REFERENCES evaluations(id),
  verdict TEXT NOT NULL,
  accepted INTEGER NOT NULL,
  why TEXT NOT NULL,
  explanation BLOB NOT NULL,
  feedback BLOB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (build_id, item_key, attempt)
);
CREATE TABLE IF NOT EXISTS fixit_records (
  build_id TEXT NOT NULL,
  item_key TEXT NOT NULL,
  record_json TEXT NOT NULL,
  in_dataset INTEGER NOT NULL,
  excluded_reason TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (build_id, item_key)
);
)sql";

constexpr const char* kBuildColumns =
    "id, created_at, updated_at, status, stop_reason, recipe_name, recipe_sha256, recipe_text, template, teacher, config_json, "
    "summary_json";
constexpr const char* kItemColumns =
    "build_id, item_key, ordinal, problem, split, template, error_class, signature, status, reason, kernel_hash, fix_source, "
    "source_json, context_json, error_json, updated_at";
constexpr const char* kAttemptColumns =
    "build_id, item_key, attempt, kind, teacher_index, phase, prompt_version, source_turn, model, outcome, finish_reason, error, "
    "http_status, seconds, input_tokens, output_tokens, reasoning_tokens, cost_usd, request_json, request_sha256, "
    "response_sha256, system_sha256, content, reasoning, candidate_sha256, evaluation_id, verdict, accepted, why, explanation, "
    "feedback, created_at, updated_at";

std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ",?" : "?";
  return s;
}

json parse(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json::object() : j;
}

FixitBuildRow read_build(const Statement& st) {
  FixitBuildRow b;
  b.id = st.text(0), b.created_at = st.text(1), b.updated_at = st.text(2), b.status = st.text(3), b.stop_reason = st.text(4);
  b.recipe_name = st.text(5), b.recipe_sha256 = st.text(6), b.recipe_text = st.text(7), b.template_kind = st.text(8);
  b.teacher = st.text(9), b.config = parse(st.text(10)), b.summary = parse(st.text(11));
  return b;
}

FixitItemRow read_item(const Statement& st) {
  FixitItemRow i;
  i.build_id = st.text(0), i.item_key = st.text(1), i.ordinal = static_cast<int>(st.integer(2)), i.problem = st.text(3);
  i.split = st.text(4), i.template_kind = st.text(5), i.error_class = st.text(6), i.signature = st.text(7);
  i.status = st.text(8), i.reason = st.text(9), i.kernel_hash = st.text(10), i.fix_source = st.text(11);
  i.source = parse(st.text(12)), i.context = parse(st.text(13)), i.error = parse(st.text(14));
  return i;
}

FixitAttemptRow read_attempt(const Statement& st) {
  FixitAttemptRow a;
  a.build_id = st.text(0), a.item_key = st.text(1), a.attempt = static_cast<int>(st.integer(2)), a.kind = st.text(3);
  a.teacher_index = static_cast<int>(st.integer(4)), a.phase = st.text(5), a.prompt_version = st.text(6);
  a.source_turn = st.text(7), a.model = st.text(8), a.outcome = st.text(9), a.finish_reason = st.text(10), a.error = st.text(11);
  a.http_status = static_cast<int>(st.integer(12)), a.seconds = st.real(13);
  a.input_tokens = st.opt_integer(14), a.output_tokens = st.opt_integer(15), a.reasoning_tokens = st.opt_integer(16);
  a.cost_usd = st.opt_real(17), a.request = parse(st.text(18));
  a.content = st.blob(22), a.reasoning = st.blob(23);
  if (!st.is_null(24)) a.candidate_sha256 = st.text(24);
  a.evaluation_id = st.opt_integer(25), a.verdict = st.text(26), a.accepted = st.integer(27) != 0, a.why = st.text(28);
  a.explanation = st.blob(29), a.feedback = st.blob(30);
  return a;
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
  char* msg = nullptr;
  if (sqlite3_exec(h_, kFixitSchema, nullptr, nullptr, &msg) != SQLITE_OK) {
    status_ = DbStatus::failure(std::string("fixit store schema: ") + (msg ? msg : "unknown error"));
    sqlite3_free(msg);
  }
}

DbStatus FixitStore::open_build(const FixitBuildRow& wanted, FixitBuildRow* actual, bool* created) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning build transaction");
  const std::string now = utc_timestamp_ms();
  bool found = false;
  {
    Statement st(h_, (std::string("SELECT ") + kBuildColumns + " FROM fixit_builds WHERE id = ?").c_str());
    if (!st.ok()) return sql_error(h_, "preparing build lookup");
    st.bind(1, wanted.id);
    if (st.step() == SQLITE_ROW) *actual = read_build(st), found = true;
  }
  if (found) {
    Statement st(h_, "UPDATE fixit_builds SET updated_at = ?, status = 'running', stop_reason = '' WHERE id = ?");
    if (!st.ok()) return sql_error(h_, "preparing build update");
    st.bind(1, now).bind(2, wanted.id);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "updating build");
    actual->status = "running";
    actual->updated_at = now;
  } else {
    Statement st(h_, (std::string("INSERT INTO fixit_builds (") + kBuildColumns + ") VALUES (" + placeholders(12) + ")").c_str());
    if (!st.ok()) return sql_error(h_, "preparing build insert");
    Params(st) << wanted.id << now << now << std::string("running") << std::string("") << wanted.recipe_name << wanted.recipe_sha256
               << wanted.recipe_text << wanted.template_kind << wanted.teacher << wanted.config.dump() << wanted.summary.dump();
    if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting build");
    *actual = wanted;
    actual->created_at = actual->updated_at = now;
    actual->status = "running";
  }
  if (!tx.commit()) return sql_error(h_, "committing build");
  *created = !found;
  return {};
}

DbStatus FixitStore::finish_build(const std::string& id, const std::string& status, const std::string& stop_reason, const json& summary) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE fixit_builds SET updated_at = ?, status = ?, stop_reason = ?, summary_json = ? WHERE id = ?");
  if (!st.ok()) return sql_error(h_, "preparing build finish");
  Params(st) << utc_timestamp_ms() << status << stop_reason << summary.dump() << id;
  if (st.step() != SQLITE_DONE) return sql_error(h_, "finishing build");
  return {};
}

DbStatus FixitStore::get_build(const std::string& id, FixitBuildRow* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kBuildColumns + " FROM fixit_builds WHERE id = ?").c_str());
  if (!st.ok()) return sql_error(h_, "preparing build read");
  st.bind(1, id);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no Fixit build '" + id + "'");
  *out = read_build(st);
  return {};
}

DbStatus FixitStore::list_builds(std::vector<FixitBuildRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kBuildColumns + " FROM fixit_builds ORDER BY created_at DESC, id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing build list");
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read_build(st));
  return {};
}

DbStatus FixitStore::insert_items(const std::vector<FixitItemRow>& items) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning item transaction");
  Statement st(h_, (std::string("INSERT INTO fixit_items (") + kItemColumns + ") VALUES (" + placeholders(16) + ")").c_str());
  if (!st.ok()) return sql_error(h_, "preparing item insert");
  const std::string now = utc_timestamp_ms();
  for (const auto& i : items) {
    st.reset();
    Params(st) << i.build_id << i.item_key << i.ordinal << i.problem << i.split << i.template_kind << i.error_class << i.signature
               << i.status << i.reason << i.kernel_hash << i.fix_source << i.source.dump() << i.context.dump() << i.error.dump()
               << now;
    if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting item " + i.item_key);
  }
  if (!tx.commit()) return sql_error(h_, "committing items");
  return {};
}

DbStatus FixitStore::load_items(const std::string& build_id, std::vector<FixitItemRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kItemColumns + " FROM fixit_items WHERE build_id = ? ORDER BY problem, ordinal, item_key").c_str());
  if (!st.ok()) return sql_error(h_, "preparing item read");
  st.bind(1, build_id);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read_item(st));
  return {};
}

DbStatus FixitStore::set_item_status(const std::string& build_id, const std::string& key, const std::string& status,
                                     const std::string& reason, const std::string& fix_source) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE fixit_items SET status = ?, reason = ?, fix_source = ?, updated_at = ? WHERE build_id = ? AND item_key = ?");
  if (!st.ok()) return sql_error(h_, "preparing item update");
  Params(st) << status << reason << fix_source << utc_timestamp_ms() << build_id << key;
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
  Statement st(h_, (std::string("INSERT INTO fixit_attempts (") + kAttemptColumns + ") VALUES (" + placeholders(33) + ")").c_str());
  if (!st.ok()) return sql_error(h_, "preparing attempt insert");
  Params p(st);
  p << a.build_id << a.item_key << a.attempt << a.kind << a.teacher_index << a.phase << a.prompt_version << a.source_turn << a.model
    << a.outcome << a.finish_reason << a.error << a.http_status << a.seconds << a.input_tokens << a.output_tokens
    << a.reasoning_tokens << a.cost_usd << a.request.dump() << request_sha << response_sha << system_sha
    << sqlite::Blob{a.content} << sqlite::Blob{a.reasoning} << a.candidate_sha256 << a.evaluation_id << a.verdict << a.accepted
    << a.why << sqlite::Blob{a.explanation} << sqlite::Blob{a.feedback} << now << now;
  if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting attempt " + a.item_key + "/" + std::to_string(a.attempt));
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
  Statement st(h_, "UPDATE fixit_attempts SET phase = ?, evaluation_id = ?, verdict = ?, accepted = ?, why = ?, explanation = ?, "
                   "feedback = ?, updated_at = ? WHERE build_id = ? AND item_key = ? AND attempt = ?");
  if (!st.ok()) return sql_error(h_, "preparing judgment update");
  Params(st) << a.phase << a.evaluation_id << a.verdict << a.accepted << a.why << sqlite::Blob{a.explanation}
             << sqlite::Blob{a.feedback} << utc_timestamp_ms() << a.build_id << a.item_key << a.attempt;
  if (st.step() != SQLITE_DONE) return sql_error(h_, "storing the judgment of " + a.item_key + "/" + std::to_string(a.attempt));
  if (!tx.commit()) return sql_error(h_, "committing judgment");
  return {};
}

DbStatus FixitStore::load_attempts(const std::string& build_id, const std::string& key, std::vector<FixitAttemptRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kAttemptColumns +
                    " FROM fixit_attempts WHERE build_id = ? AND item_key = ? ORDER BY attempt").c_str());
  if (!st.ok()) return sql_error(h_, "preparing attempt read");
  st.bind(1, build_id).bind(2, key);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read_attempt(st));
  for (auto& a : *out)
    if (a.candidate_sha256)
      if (auto s = store_detail::get_candidate(h_, *a.candidate_sha256, &a.candidate); !s.ok) return s;
  return {};
}

DbStatus FixitStore::load_all_attempts(const std::string& build_id, std::vector<FixitAttemptRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kAttemptColumns +
                    " FROM fixit_attempts WHERE build_id = ? ORDER BY item_key, attempt").c_str());
  if (!st.ok()) return sql_error(h_, "preparing attempt read");
  st.bind(1, build_id);
  out->clear();
  while (st.step() == SQLITE_ROW) out->push_back(read_attempt(st));
  return {};
}

DbStatus FixitStore::store_record(const std::string& build_id, const std::string& key, const json& record, const std::string& fix_source) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning record transaction");
  const std::string now = utc_timestamp_ms();
  {
    Statement st(h_, "INSERT OR REPLACE INTO fixit_records (build_id, item_key, record_json, in_dataset, excluded_reason, created_at) "
                     "VALUES (?, ?, ?, 1, '', ?)");
    if (!st.ok()) return sql_error(h_, "preparing record insert");
    Params(st) << build_id << key << record.dump(-1, ' ', false, json::error_handler_t::replace) << now;
    if (st.step() != SQLITE_DONE) return sql_error(h_, "storing record " + key);
  }
  {
    Statement st(h_, "UPDATE fixit_items SET status = 'record', reason = '', fix_source = ?, updated_at = ? WHERE build_id = ? AND item_key = ?");
    if (!st.ok()) return sql_error(h_, "preparing item update");
    Params(st) << fix_source << now << build_id << key;
    if (st.step() != SQLITE_DONE) return sql_error(h_, "updating item " + key);
  }
  if (!tx.commit()) return sql_error(h_, "committing record");
  return {};
}

DbStatus FixitStore::load_records(const std::string& build_id, std::vector<FixitRecordRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "SELECT r.build_id, r.item_key, r.created_at, r.record_json, r.in_dataset, r.excluded_reason FROM fixit_records r "
                   "JOIN fixit_items i ON i.build_id = r.build_id AND i.item_key = r.item_key WHERE r.build_id = ? "
                   "ORDER BY i.problem, i.ordinal, r.item_key");
  if (!st.ok()) return sql_error(h_, "preparing record read");
  st.bind(1, build_id);
  out->clear();
  while (st.step() == SQLITE_ROW) {
    FixitRecordRow r;
    r.build_id = st.text(0), r.item_key = st.text(1), r.created_at = st.text(2), r.record = parse(st.text(3));
    r.in_dataset = st.integer(4) != 0, r.excluded_reason = st.text(5);
    out->push_back(std::move(r));
  }
  return {};
}

DbStatus FixitStore::set_record_inclusion(const std::string& build_id, const std::string& key, bool in_dataset, const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE fixit_records SET in_dataset = ?, excluded_reason = ? WHERE build_id = ? AND item_key = ?");
  if (!st.ok()) return sql_error(h_, "preparing record update");
  Params(st) << in_dataset << reason << build_id << key;
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
