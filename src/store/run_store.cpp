// The run store: runs, trajectories, model calls, turns and events in the workspace database.
#include "store/run_store.h"

#include <sqlite3.h>

#include <functional>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "store/content_tables.h"
#include "store/run_columns.h"
#include "store/schema_migrations.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;
using sqlite::Transaction;

using store_detail::Columns;
using store_detail::sql_error;
using store_detail::StoredModelCall;

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Reads one row by column name; a malformed JSON column is a status naming the row, never a crash.
template <class Row>
DbStatus read_row(const Columns<Row>& columns, const Statement& st, Row* row,
                  const std::function<std::string(const Row&)>& where) {
  std::string bad;
  if (!columns.read(st, row, &bad)) return DbStatus::failure(where(*row) + " " + bad + ": stored JSON is malformed");
  return {};
}

std::string run_where(const RunInfo& r) { return "run " + r.id; }
std::string turn_where(const TurnRow& t) {
  return "turn " + t.run_id + " " + t.problem + "/" + std::to_string(t.trajectory) + "/" + std::to_string(t.turn);
}
std::string call_where(const StoredModelCall& c) { return "model call " + std::to_string(c.id); }

}  // namespace

RunStore::RunStore(const std::filesystem::path& path) : db_(path) {
  status_ = db_.status();
  if (!status_.ok) return;
  h_ = db_.handle();
  if (auto s = prepare_writer(h_, SchemaPart::run_store, path, "run store schema: "); !s.ok) status_ = s;
}

DbStatus RunStore::put_blob(const std::string& bytes, std::string* sha256) {
  return store_detail::put_blob(h_, bytes, sha256);
}

DbStatus RunStore::get_blob(const std::string& sha256, std::string* out) {
  return store_detail::get_blob(h_, sha256, out);
}

DbStatus RunStore::open_run(const RunInfo& wanted, RunInfo* actual, bool* created) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning run transaction");
  RunInfo existing;
  bool found = false;
  const auto& runs = store_detail::run_columns();
  {
    Statement st(h_, runs.select_sql("WHERE id = :id").c_str());
    if (!st.ok()) return sql_error(h_, "preparing run lookup");
    st.bind(":id", wanted.id);
    if (st.step() == SQLITE_ROW) {
      if (auto s = read_row<RunInfo>(runs, st, &existing, run_where); !s.ok) return s;
      found = true;
    }
  }
  const std::string now = utc_timestamp_ms();
  if (found && existing.identity_sha256 != wanted.identity_sha256)
    return DbStatus::failure("run '" + wanted.id + "' already exists with a different configuration (model " +
                             existing.model + ", arch " + existing.arch + ", knowledge " + existing.knowledge +
                             ", problems " + join(existing.problems) +
                             "); pick another --run-name or use the same settings");
  if (found) {
    Statement st(
        h_,
        "UPDATE runs SET updated_at = :now, status = 'running', stop_reason = '', trajectories = :trajectories, "
        "turns = :turns, problems = :problems, config_json = :config, provenance_json = :provenance WHERE id = :id");
    if (!st.ok()) return sql_error(h_, "preparing run update");
    st.bind(":now", now)
        .bind(":trajectories", wanted.trajectories)
        .bind(":turns", wanted.turns)
        .bind(":problems", join(wanted.problems));
    st.bind(":config", wanted.config.dump()).bind(":provenance", wanted.provenance.dump()).bind(":id", wanted.id);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "updating run");
  } else {
    Statement st(h_, runs.insert_sql().c_str());
    if (!st.ok()) return sql_error(h_, "preparing run insert");
    RunInfo row = wanted;
    row.created_at = row.updated_at = now;
    row.status = "running", row.stop_reason = "";
    runs.bind(st, row);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting run");
  }
  {
    const auto& trajectories = store_detail::trajectory_columns();
    Statement st(h_, trajectories.insert_sql("INSERT OR IGNORE").c_str());
    if (!st.ok()) return sql_error(h_, "preparing trajectory insert");
    for (const auto& p : wanted.problems)
      for (int t = 0; t < wanted.trajectories; ++t) {
        st.reset();
        trajectories.bind(st, TrajectoryRow{wanted.id, p, t, 0, "open"});
        if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting trajectory");
      }
  }
  {
    // The budget may have changed: every trajectory's status follows the run's turn count.
    Statement st(h_,
                 "UPDATE trajectories SET status = CASE WHEN turns_done >= :turns THEN 'complete' ELSE 'open' END "
                 "WHERE run_id = :run_id");
    if (!st.ok()) return sql_error(h_, "preparing trajectory refresh");
    st.bind(":turns", wanted.turns).bind(":run_id", wanted.id);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "refreshing trajectories");
  }
  if (!tx.commit()) return sql_error(h_, "committing run");
  if (created) *created = !found;
  return get_run(wanted.id, actual);
}

DbStatus RunStore::set_run_status(const std::string& run_id, const std::string& status, const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE runs SET status = :status, stop_reason = :reason, updated_at = :now WHERE id = :id");
  if (!st.ok()) return sql_error(h_, "preparing run status update");
  st.bind(":status", status).bind(":reason", reason).bind(":now", utc_timestamp_ms()).bind(":id", run_id);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating run status");
  return {};
}

DbStatus RunStore::set_provenance(const std::string& run_id, const json& provenance) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE runs SET provenance_json = :provenance, updated_at = :now WHERE id = :id");
  if (!st.ok()) return sql_error(h_, "preparing provenance update");
  st.bind(":provenance", provenance.dump()).bind(":now", utc_timestamp_ms()).bind(":id", run_id);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating provenance");
  return {};
}

DbStatus RunStore::get_run(const std::string& run_id, RunInfo* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& runs = store_detail::run_columns();
  Statement st(h_, runs.select_sql("WHERE id = :id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing run read");
  st.bind(":id", run_id);
  const int rc = st.step();
  if (rc == SQLITE_DONE)
    return DbStatus::failure("no run '" + run_id + "' in this workspace (see 'ptxbench runs list')");
  if (rc != SQLITE_ROW) return sql_error(h_, "reading run");
  return read_row<RunInfo>(runs, st, out, run_where);
}

DbStatus RunStore::list_runs(std::vector<RunInfo>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& runs = store_detail::run_columns();
  Statement st(h_, runs.select_sql("ORDER BY created_at DESC, id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing run list");
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    RunInfo r;
    if (auto s = read_row<RunInfo>(runs, st, &r, run_where); !s.ok) return s;
    out->push_back(std::move(r));
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "listing runs");
}

DbStatus RunStore::insert_model_call(ModelCallRow& c) {
  std::string system_sha, request_sha, response_sha;
  if (auto s = put_blob(c.system_text, &system_sha); !s.ok) return s;
  c.request["system_sha256"] = system_sha;
  if (auto s = put_blob(c.request_bytes, &request_sha); !s.ok) return s;
  if (auto s = put_blob(c.response_bytes, &response_sha); !s.ok) return s;
  const auto columns = store_detail::model_call_columns().without({"id"});  // AUTOINCREMENT
  Statement st(h_, columns.insert_sql().c_str());
  if (!st.ok()) return sql_error(h_, "preparing model call insert");
  StoredModelCall row;
  static_cast<ModelCallRow&>(row) = c;
  row.request_sha256 = request_sha, row.response_sha256 = response_sha;
  columns.bind(st, row);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "storing model call");
  c.id = sqlite3_last_insert_rowid(h_);
  return {};
}

DbStatus RunStore::record_model_call(ModelCallRow& call) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning model call transaction");
  if (auto s = insert_model_call(call); !s.ok) return s;
  if (!tx.commit()) return sql_error(h_, "committing model call");
  return {};
}

DbStatus RunStore::write_turn(const TurnRow& t, bool insert) {
  const auto& turns = store_detail::turn_columns();
  Statement st(h_, turns.insert_sql(insert ? "INSERT" : "INSERT OR REPLACE").c_str());
  if (!st.ok()) return sql_error(h_, "preparing turn write");
  turns.bind(st, t);
  if (st.step() != SQLITE_DONE)
    return sql_error(h_,
                     "storing turn " + t.problem + "/" + std::to_string(t.trajectory) + "/" + std::to_string(t.turn));
  return {};
}

DbStatus RunStore::refresh_trajectory(const TurnRow& t) {
  Statement st(h_,
               "UPDATE trajectories SET "
               "turns_done = (SELECT COUNT(*) FROM turns WHERE run_id = :run_id AND problem = :problem AND trajectory "
               "= :trajectory "
               "AND phase = 'done'), "
               "status = CASE WHEN (SELECT COUNT(*) FROM turns WHERE run_id = :run_id AND problem = :problem AND "
               "trajectory = :trajectory "
               "AND phase = 'done') >= (SELECT turns FROM runs WHERE id = :run_id) THEN 'complete' ELSE 'open' END "
               "WHERE run_id = :run_id AND problem = :problem AND trajectory = :trajectory");
  if (!st.ok()) return sql_error(h_, "preparing trajectory update");
  st.bind(":run_id", t.run_id).bind(":problem", t.problem).bind(":trajectory", t.trajectory);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating trajectory");
  return {};
}

DbStatus RunStore::link_evaluation(const TurnRow& t, const std::string& kind) {
  Statement st(h_,
               "INSERT INTO turn_evaluations (run_id, problem, trajectory, turn, evaluation_id, kind, created_at) "
               "VALUES (:run_id, :problem, :trajectory, :turn, :evaluation_id, :kind, :created_at)");
  if (!st.ok()) return sql_error(h_, "preparing evaluation link");
  st.bind(":run_id", t.run_id).bind(":problem", t.problem).bind(":trajectory", t.trajectory).bind(":turn", t.turn);
  st.bind(":evaluation_id", *t.evaluation_id).bind(":kind", kind).bind(":created_at", utc_timestamp_ms());
  if (st.step() != SQLITE_DONE) return sql_error(h_, "linking evaluation");
  return {};
}

DbStatus RunStore::store_reply(ModelCallRow& call, TurnRow& turn, const std::string* candidate_source) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning turn transaction");
  if (auto s = insert_model_call(call); !s.ok) return s;
  turn.model_call_id = call.id;
  if (candidate_source) {
    std::string sha;
    if (auto s = store_detail::put_candidate(h_, *candidate_source, &sha); !s.ok) return s;
    turn.candidate_sha256 = sha;
  }
  if (auto s = write_turn(turn, true); !s.ok) return s;
  if (turn.phase == "done")
    if (auto s = refresh_trajectory(turn); !s.ok) return s;
  if (!tx.commit()) return sql_error(h_, "committing turn");
  return {};
}

DbStatus RunStore::finish_turn(TurnRow& turn, const EvaluationRecord* record) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning turn transaction");
  if (record) {
    long long id = 0;
    if (auto s = db_.insert(*record, &id); !s.ok) return s;
    turn.evaluation_id = id;
  }
  turn.phase = "done";
  if (auto s = write_turn(turn, false); !s.ok) return s;
  if (turn.evaluation_id)
    if (auto s = link_evaluation(turn, turn.reused_evaluation ? "reused" : "turn"); !s.ok) return s;
  if (auto s = refresh_trajectory(turn); !s.ok) return s;
  if (!tx.commit()) return sql_error(h_, "committing turn");
  return {};
}

DbStatus RunStore::rescore_turn(TurnRow& turn, const EvaluationRecord* record) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning rescore transaction");
  if (record) {
    long long id = 0;
    if (auto s = db_.insert(*record, &id); !s.ok) return s;
    turn.evaluation_id = id;
  }
  if (!turn.evaluation_id) return DbStatus::failure("rescore of a turn without an evaluation");
  if (auto s = write_turn(turn, false); !s.ok) return s;
  if (auto s = link_evaluation(turn, "rescore"); !s.ok) return s;
  if (!tx.commit()) return sql_error(h_, "committing rescore");
  return {};
}

DbStatus RunStore::load_turns(const std::string& run_id, std::vector<TurnRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& turns = store_detail::turn_columns();
  Statement st(h_, turns.select_sql("WHERE run_id = :run_id ORDER BY problem, trajectory, turn").c_str());
  if (!st.ok()) return sql_error(h_, "preparing turn read");
  st.bind(":run_id", run_id);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    TurnRow t;
    if (auto s = read_row<TurnRow>(turns, st, &t, turn_where); !s.ok) return s;
    out->push_back(std::move(t));
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "reading turns");
}

DbStatus RunStore::load_trajectories(const std::string& run_id, std::vector<TrajectoryRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& trajectories = store_detail::trajectory_columns();
  Statement st(h_, trajectories.select_sql("WHERE run_id = :run_id ORDER BY problem, trajectory").c_str());
  if (!st.ok()) return sql_error(h_, "preparing trajectory read");
  st.bind(":run_id", run_id);
  int rc;
  std::string unused;
  while ((rc = st.step()) == SQLITE_ROW) {
    TrajectoryRow t;
    trajectories.read(st, &t, &unused);
    out->push_back(std::move(t));
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "reading trajectories");
}

DbStatus RunStore::load_model_call(long long id, ModelCallRow* c) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& calls = store_detail::model_call_columns();
  Statement st(h_, calls.select_sql("WHERE id = :id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing model call read");
  st.bind(":id", id);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no model call with id " + std::to_string(id));
  StoredModelCall row;
  if (auto s = read_row<StoredModelCall>(calls, st, &row, call_where); !s.ok) return s;
  *c = row;
  if (auto s = get_blob(row.request_sha256, &c->request_bytes); !s.ok) return s;
  if (auto s = get_blob(row.response_sha256, &c->response_bytes); !s.ok) return s;
  return get_blob(c->request.value("system_sha256", ""), &c->system_text);
}

DbStatus RunStore::load_reply_content(long long id, std::string* content) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "SELECT content FROM model_calls WHERE id = :id");
  if (!st.ok()) return sql_error(h_, "preparing reply read");
  st.bind(":id", id);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no model call with id " + std::to_string(id));
  *content = st.blob(st.column("content"));
  return {};
}

DbStatus RunStore::count_model_calls(const std::string& run_id, const std::string& problem, int trajectory, int turn,
                                     int* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_,
               "SELECT COUNT(*) AS calls FROM model_calls WHERE run_id = :run_id AND problem = :problem AND "
               "trajectory = :trajectory AND turn = :turn");
  if (!st.ok()) return sql_error(h_, "preparing model call count");
  st.bind(":run_id", run_id).bind(":problem", problem).bind(":trajectory", trajectory).bind(":turn", turn);
  if (st.step() != SQLITE_ROW) return sql_error(h_, "counting model calls");
  *out = static_cast<int>(st.integer(st.column("calls")));
  return {};
}

DbStatus RunStore::candidate_source(const std::string& sha256, std::string* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  return store_detail::get_candidate(h_, sha256, out);
}

DbStatus RunStore::evaluation(long long id, EvaluationRecord* out) {
  std::lock_guard lock(mutex_);
  StoredRecord r;
  if (auto s = db_.get(id, &r); !s.ok) return s;
  *out = std::move(r.record);
  return {};
}

DbStatus RunStore::add_event(const RunEvent& e) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto columns = store_detail::run_event_columns().without({"id"});  // AUTOINCREMENT
  Statement st(h_, columns.insert_sql().c_str());
  if (!st.ok()) return sql_error(h_, "preparing event insert");
  RunEvent row = e;
  if (row.at.empty()) row.at = utc_timestamp_ms();
  columns.bind(st, row);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "storing event");
  return {};
}

DbStatus RunStore::load_events(const std::string& run_id, std::vector<RunEvent>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  const auto& events = store_detail::run_event_columns();
  Statement st(h_, events.select_sql("WHERE run_id = :run_id ORDER BY id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing event read");
  st.bind(":run_id", run_id);
  int rc;
  std::string unused;
  while ((rc = st.step()) == SQLITE_ROW) {
    RunEvent e;
    events.read(st, &e, &unused);
    out->push_back(std::move(e));
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "reading events");
}

}  // namespace ptxbench
