#include "store/run_store.h"

#include <sqlite3.h>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/timestamp.h"
#include "store/content_tables.h"
#include "store/sqlite_statement.h"

namespace ptxbench {
namespace {

using sqlite::Statement;
using sqlite::Transaction;

constexpr const char* kRunSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status TEXT NOT NULL,            -- running, complete, stopped
  stop_reason TEXT NOT NULL,
  model TEXT NOT NULL,             -- PROVIDER:MODEL
  arch TEXT NOT NULL,
  knowledge TEXT NOT NULL,
  problems TEXT NOT NULL,          -- comma-separated
  trajectories INTEGER NOT NULL,   -- per problem
  turns INTEGER NOT NULL,          -- counted turns per trajectory
  identity_sha256 TEXT NOT NULL,
  config_json TEXT NOT NULL,
  provenance_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trajectories (
  run_id TEXT NOT NULL REFERENCES runs(id),
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,     -- 0-based
  turns_done INTEGER NOT NULL,     -- counted turns with phase done
  status TEXT NOT NULL,            -- open, complete
  PRIMARY KEY (run_id, problem, trajectory)
);
CREATE TABLE IF NOT EXISTS blobs (
  sha256 TEXT PRIMARY KEY,
  bytes BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS candidates (
  sha256 TEXT PRIMARY KEY,
  source BLOB NOT NULL,
  size INTEGER NOT NULL,
  first_seen_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS model_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs(id),
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  attempt INTEGER NOT NULL,        -- 0-based per turn, uncounted attempts included
  started_at TEXT NOT NULL,
  seconds REAL NOT NULL,
  outcome TEXT NOT NULL,           -- ProviderOutcome
  finish_reason TEXT NOT NULL,
  model TEXT NOT NULL,
  http_status INTEGER NOT NULL,
  attempts INTEGER NOT NULL,       -- HTTP attempts inside the client (its own retries)
  error TEXT NOT NULL,
  retries_json TEXT NOT NULL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,   -- NULL: not reported
  request_sha256 TEXT NOT NULL REFERENCES blobs(sha256),   -- the exact bytes sent
  request_is_canonical INTEGER NOT NULL,                   -- 1: our request JSON (the client sent no bytes)
  request_json TEXT NOT NULL,      -- {"system_sha256", "messages", "options"}
  response_sha256 TEXT NOT NULL REFERENCES blobs(sha256),  -- the exact bytes received
  content BLOB NOT NULL,
  reasoning BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS model_calls_turn ON model_calls(run_id, problem, trajectory, turn);
CREATE TABLE IF NOT EXISTS turns (
  run_id TEXT NOT NULL REFERENCES runs(id),
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,     -- 0-based
  turn INTEGER NOT NULL,           -- 0-based
  phase TEXT NOT NULL,             -- judging (reply stored, not judged yet), done
  state TEXT NOT NULL,             -- verdict, no_code, a provider outcome, or pending
  provider_outcome TEXT NOT NULL,
  model_call_id INTEGER NOT NULL REFERENCES model_calls(id),
  candidate_sha256 TEXT REFERENCES candidates(sha256),
  extraction_json TEXT NOT NULL,
  evaluation_id INTEGER REFERENCES evaluations(id),
  reused_evaluation INTEGER NOT NULL,
  verdict TEXT,
  target_static INTEGER, target_executed INTEGER, target_correct INTEGER,  -- NULL: unknown / not judged
  speedup_geomean REAL,
  feedback BLOB NOT NULL,
  feedback_version TEXT NOT NULL,
  context_json TEXT NOT NULL,
  input_tokens INTEGER, output_tokens INTEGER, reasoning_tokens INTEGER,
  reasoning_chars INTEGER NOT NULL,
  cost_usd REAL,
  model_seconds REAL NOT NULL, compile_wait_seconds REAL NOT NULL, prepare_seconds REAL NOT NULL,
  build_seconds REAL NOT NULL, gpu_wait_seconds REAL NOT NULL, gpu_seconds REAL NOT NULL,
  started_at TEXT NOT NULL, replied_at TEXT NOT NULL, finished_at TEXT NOT NULL,
  PRIMARY KEY (run_id, problem, trajectory, turn)
);
CREATE INDEX IF NOT EXISTS turns_candidate ON turns(run_id, problem, candidate_sha256);
CREATE TABLE IF NOT EXISTS turn_evaluations (
  run_id TEXT NOT NULL,
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
  kind TEXT NOT NULL,              -- turn (what the model was told), reused, rescore
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turn_evaluations_turn ON turn_evaluations(run_id, problem, trajectory, turn);
CREATE TABLE IF NOT EXISTS run_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,              -- start, resume, stop, complete, infra_error, quota, retry, store_error, ...
  problem TEXT NOT NULL,
  trajectory INTEGER NOT NULL,     -- -1: not about one trajectory
  turn INTEGER NOT NULL,
  message TEXT NOT NULL
);
)sql";

constexpr const char* kTurnColumns =
    "run_id, problem, trajectory, turn, phase, state, provider_outcome, model_call_id, candidate_sha256, "
    "extraction_json, evaluation_id, reused_evaluation, verdict, target_static, target_executed, target_correct, "
    "speedup_geomean, feedback, feedback_version, context_json, input_tokens, output_tokens, reasoning_tokens, "
    "reasoning_chars, cost_usd, model_seconds, compile_wait_seconds, prepare_seconds, build_seconds, "
    "gpu_wait_seconds, gpu_seconds, started_at, replied_at, finished_at";
constexpr int kTurnColumnCount = 34;

constexpr const char* kRunColumns =
    "id, created_at, updated_at, status, stop_reason, model, arch, knowledge, problems, trajectories, turns, "
    "identity_sha256, config_json, provenance_json";

constexpr const char* kModelCallColumns =
    "id, run_id, problem, trajectory, turn, attempt, started_at, seconds, outcome, finish_reason, model, http_status, "
    "attempts, error, retries_json, input_tokens, output_tokens, reasoning_tokens, request_sha256, "
    "request_is_canonical, request_json, response_sha256, content, reasoning";

using store_detail::sql_error;

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// Parses a stored JSON column; a malformed one is a status naming the row, never a crash.
DbStatus parse_json(const std::string& text, const std::string& what, json* out) {
  *out = json::parse(text, nullptr, false);
  if (out->is_discarded()) return DbStatus::failure(what + ": stored JSON is malformed");
  return {};
}

std::optional<bool> opt_bool(const Statement& st, int c) {
  if (st.is_null(c)) return std::nullopt;
  return st.integer(c) != 0;
}

DbStatus read_run(const Statement& st, RunInfo* r) {
  r->id = st.text(0);
  r->created_at = st.text(1);
  r->updated_at = st.text(2);
  r->status = st.text(3);
  r->stop_reason = st.text(4);
  r->model = st.text(5);
  r->arch = st.text(6);
  r->knowledge = st.text(7);
  r->problems = split(st.text(8));
  r->trajectories = static_cast<int>(st.integer(9));
  r->turns = static_cast<int>(st.integer(10));
  r->identity_sha256 = st.text(11);
  if (auto s = parse_json(st.text(12), "run " + r->id + " config", &r->config); !s.ok) return s;
  return parse_json(st.text(13), "run " + r->id + " provenance", &r->provenance);
}

DbStatus read_turn(const Statement& st, TurnRow* t) {
  int c = 0;
  t->run_id = st.text(c++);
  t->problem = st.text(c++);
  t->trajectory = static_cast<int>(st.integer(c++));
  t->turn = static_cast<int>(st.integer(c++));
  t->phase = st.text(c++);
  t->state = st.text(c++);
  t->provider_outcome = st.text(c++);
  t->model_call_id = st.integer(c++);
  if (!st.is_null(c)) t->candidate_sha256 = st.text(c);
  ++c;
  const std::string where = "turn " + t->run_id + " " + t->problem + "/" + std::to_string(t->trajectory) + "/" +
                            std::to_string(t->turn);
  if (auto s = parse_json(st.text(c++), where + " extraction", &t->extraction); !s.ok) return s;
  t->evaluation_id = st.opt_integer(c++);
  t->reused_evaluation = st.integer(c++) != 0;
  if (!st.is_null(c)) t->verdict = st.text(c);
  ++c;
  t->target_static = opt_bool(st, c++);
  t->target_executed = opt_bool(st, c++);
  t->target_correct = opt_bool(st, c++);
  t->speedup_geomean = st.opt_real(c++);
  t->feedback = st.blob(c++);
  t->feedback_version = st.text(c++);
  if (auto s = parse_json(st.text(c++), where + " context", &t->context); !s.ok) return s;
  t->input_tokens = st.opt_integer(c++);
  t->output_tokens = st.opt_integer(c++);
  t->reasoning_tokens = st.opt_integer(c++);
  t->reasoning_chars = st.integer(c++);
  t->cost_usd = st.opt_real(c++);
  t->model_seconds = st.real(c++);
  t->compile_wait_seconds = st.real(c++);
  t->prepare_seconds = st.real(c++);
  t->build_seconds = st.real(c++);
  t->gpu_wait_seconds = st.real(c++);
  t->gpu_seconds = st.real(c++);
  t->started_at = st.text(c++);
  t->replied_at = st.text(c++);
  t->finished_at = st.text(c++);
  return {};
}

void bind_turn(Statement& st, const TurnRow& t) {
  sqlite::Params(st) << t.run_id << t.problem << t.trajectory << t.turn << t.phase << t.state << t.provider_outcome
                     << t.model_call_id << t.candidate_sha256 << t.extraction.dump() << t.evaluation_id
                     << t.reused_evaluation << t.verdict << t.target_static << t.target_executed << t.target_correct
                     << t.speedup_geomean << sqlite::Blob{t.feedback} << t.feedback_version << t.context.dump()
                     << t.input_tokens << t.output_tokens << t.reasoning_tokens << t.reasoning_chars << t.cost_usd
                     << t.model_seconds << t.compile_wait_seconds << t.prepare_seconds << t.build_seconds
                     << t.gpu_wait_seconds << t.gpu_seconds << t.started_at << t.replied_at << t.finished_at;
}

std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ",?" : "?";
  return s;
}

}  // namespace

RunStore::RunStore(const std::filesystem::path& path) : db_(path) {
  status_ = db_.status();
  if (!status_.ok) return;
  h_ = db_.handle();
  // WAL: readers (runs list, a second terminal) never block the run; NORMAL sync is durable
  // against a killed process (kill -9), which is what resume promises.
  char* msg = nullptr;
  for (const char* sql : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", kRunSchema}) {
    if (sqlite3_exec(h_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
      status_ = DbStatus::failure(std::string("run store schema: ") + (msg ? msg : "unknown error"));
      sqlite3_free(msg);
      return;
    }
  }
}

DbStatus RunStore::put_blob(const std::string& bytes, std::string* sha256) { return store_detail::put_blob(h_, bytes, sha256); }

DbStatus RunStore::get_blob(const std::string& sha256, std::string* out) { return store_detail::get_blob(h_, sha256, out); }

DbStatus RunStore::open_run(const RunInfo& wanted, RunInfo* actual, bool* created) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Transaction tx(h_);
  if (!tx.began()) return sql_error(h_, "beginning run transaction");
  RunInfo existing;
  bool found = false;
  {
    Statement st(h_, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?").c_str());
    if (!st.ok()) return sql_error(h_, "preparing run lookup");
    st.bind(1, wanted.id);
    if (st.step() == SQLITE_ROW) {
      if (auto s = read_run(st, &existing); !s.ok) return s;
      found = true;
    }
  }
  const std::string now = utc_timestamp_ms();
  if (found && existing.identity_sha256 != wanted.identity_sha256)
    return DbStatus::failure("run '" + wanted.id + "' already exists with a different configuration (model " +
                             existing.model + ", arch " + existing.arch + ", knowledge " + existing.knowledge +
                             ", problems " + join(existing.problems) + "); pick another --run-name or use the same settings");
  if (found) {
    Statement st(h_, "UPDATE runs SET updated_at = ?, status = 'running', stop_reason = '', trajectories = ?, turns = ?, "
                     "problems = ?, config_json = ?, provenance_json = ? WHERE id = ?");
    if (!st.ok()) return sql_error(h_, "preparing run update");
    st.bind(1, now).bind(2, wanted.trajectories).bind(3, wanted.turns).bind(4, join(wanted.problems));
    st.bind(5, wanted.config.dump()).bind(6, wanted.provenance.dump()).bind(7, wanted.id);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "updating run");
  } else {
    Statement st(h_, (std::string("INSERT INTO runs (") + kRunColumns + ") VALUES (" + placeholders(14) + ")").c_str());
    if (!st.ok()) return sql_error(h_, "preparing run insert");
    st.bind(1, wanted.id).bind(2, now).bind(3, now).bind(4, "running").bind(5, "").bind(6, wanted.model);
    st.bind(7, wanted.arch).bind(8, wanted.knowledge).bind(9, join(wanted.problems)).bind(10, wanted.trajectories);
    st.bind(11, wanted.turns).bind(12, wanted.identity_sha256).bind(13, wanted.config.dump());
    st.bind(14, wanted.provenance.dump());
    if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting run");
  }
  {
    Statement st(h_, "INSERT OR IGNORE INTO trajectories (run_id, problem, trajectory, turns_done, status) "
                     "VALUES (?, ?, ?, 0, 'open')");
    if (!st.ok()) return sql_error(h_, "preparing trajectory insert");
    for (const auto& p : wanted.problems)
      for (int t = 0; t < wanted.trajectories; ++t) {
        st.reset();
        st.bind(1, wanted.id).bind(2, p).bind(3, t);
        if (st.step() != SQLITE_DONE) return sql_error(h_, "inserting trajectory");
      }
  }
  {
    // The budget may have changed: every trajectory's status follows the run's turn count.
    Statement st(h_, "UPDATE trajectories SET status = CASE WHEN turns_done >= ? THEN 'complete' ELSE 'open' END "
                     "WHERE run_id = ?");
    if (!st.ok()) return sql_error(h_, "preparing trajectory refresh");
    st.bind(1, wanted.turns).bind(2, wanted.id);
    if (st.step() != SQLITE_DONE) return sql_error(h_, "refreshing trajectories");
  }
  if (!tx.commit()) return sql_error(h_, "committing run");
  if (created) *created = !found;
  return get_run(wanted.id, actual);
}

DbStatus RunStore::set_run_status(const std::string& run_id, const std::string& status, const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE runs SET status = ?, stop_reason = ?, updated_at = ? WHERE id = ?");
  if (!st.ok()) return sql_error(h_, "preparing run status update");
  st.bind(1, status).bind(2, reason).bind(3, utc_timestamp_ms()).bind(4, run_id);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating run status");
  return {};
}

DbStatus RunStore::set_provenance(const std::string& run_id, const json& provenance) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "UPDATE runs SET provenance_json = ?, updated_at = ? WHERE id = ?");
  if (!st.ok()) return sql_error(h_, "preparing provenance update");
  st.bind(1, provenance.dump()).bind(2, utc_timestamp_ms()).bind(3, run_id);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating provenance");
  return {};
}

DbStatus RunStore::get_run(const std::string& run_id, RunInfo* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?").c_str());
  if (!st.ok()) return sql_error(h_, "preparing run read");
  st.bind(1, run_id);
  const int rc = st.step();
  if (rc == SQLITE_DONE) return DbStatus::failure("no run '" + run_id + "' in this workspace (see 'ptxbench runs list')");
  if (rc != SQLITE_ROW) return sql_error(h_, "reading run");
  return read_run(st, out);
}

DbStatus RunStore::list_runs(std::vector<RunInfo>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY created_at DESC, id").c_str());
  if (!st.ok()) return sql_error(h_, "preparing run list");
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    RunInfo r;
    if (auto s = read_run(st, &r); !s.ok) return s;
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
  Statement st(h_, "INSERT INTO model_calls (run_id, problem, trajectory, turn, attempt, started_at, seconds, outcome, "
                   "finish_reason, model, http_status, attempts, error, retries_json, input_tokens, output_tokens, "
                   "reasoning_tokens, request_sha256, request_is_canonical, request_json, response_sha256, content, "
                   "reasoning) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!st.ok()) return sql_error(h_, "preparing model call insert");
  sqlite::Params(st) << c.run_id << c.problem << c.trajectory << c.turn << c.attempt << c.started_at << c.seconds
                     << c.outcome << c.finish_reason << c.model << c.http_status << c.attempts << c.error << c.retries.dump()
                     << c.input_tokens << c.output_tokens << c.reasoning_tokens << request_sha << c.request_is_canonical
                     << c.request.dump() << response_sha << sqlite::Blob{c.content} << sqlite::Blob{c.reasoning};
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
  const std::string sql = std::string(insert ? "INSERT" : "INSERT OR REPLACE") + " INTO turns (" + kTurnColumns +
                          ") VALUES (" + placeholders(kTurnColumnCount) + ")";
  Statement st(h_, sql.c_str());
  if (!st.ok()) return sql_error(h_, "preparing turn write");
  bind_turn(st, t);
  if (st.step() != SQLITE_DONE)
    return sql_error(h_, "storing turn " + t.problem + "/" + std::to_string(t.trajectory) + "/" + std::to_string(t.turn));
  return {};
}

DbStatus RunStore::refresh_trajectory(const TurnRow& t) {
  Statement st(h_, "UPDATE trajectories SET "
                   "turns_done = (SELECT COUNT(*) FROM turns WHERE run_id = ?1 AND problem = ?2 AND trajectory = ?3 AND phase = 'done'), "
                   "status = CASE WHEN (SELECT COUNT(*) FROM turns WHERE run_id = ?1 AND problem = ?2 AND trajectory = ?3 "
                   "AND phase = 'done') >= (SELECT turns FROM runs WHERE id = ?1) THEN 'complete' ELSE 'open' END "
                   "WHERE run_id = ?1 AND problem = ?2 AND trajectory = ?3");
  if (!st.ok()) return sql_error(h_, "preparing trajectory update");
  st.bind(1, t.run_id).bind(2, t.problem).bind(3, t.trajectory);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "updating trajectory");
  return {};
}

DbStatus RunStore::link_evaluation(const TurnRow& t, const std::string& kind) {
  Statement st(h_, "INSERT INTO turn_evaluations (run_id, problem, trajectory, turn, evaluation_id, kind, created_at) "
                   "VALUES (?,?,?,?,?,?,?)");
  if (!st.ok()) return sql_error(h_, "preparing evaluation link");
  st.bind(1, t.run_id).bind(2, t.problem).bind(3, t.trajectory).bind(4, t.turn).bind(5, *t.evaluation_id);
  st.bind(6, kind).bind(7, utc_timestamp_ms());
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
  Statement st(h_, (std::string("SELECT ") + kTurnColumns +
                    " FROM turns WHERE run_id = ? ORDER BY problem, trajectory, turn").c_str());
  if (!st.ok()) return sql_error(h_, "preparing turn read");
  st.bind(1, run_id);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    TurnRow t;
    if (auto s = read_turn(st, &t); !s.ok) return s;
    out->push_back(std::move(t));
  }
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "reading turns");
}

DbStatus RunStore::load_trajectories(const std::string& run_id, std::vector<TrajectoryRow>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "SELECT run_id, problem, trajectory, turns_done, status FROM trajectories WHERE run_id = ? "
                   "ORDER BY problem, trajectory");
  if (!st.ok()) return sql_error(h_, "preparing trajectory read");
  st.bind(1, run_id);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW)
    out->push_back({st.text(0), st.text(1), static_cast<int>(st.integer(2)), static_cast<int>(st.integer(3)), st.text(4)});
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "reading trajectories");
}

DbStatus RunStore::load_model_call(long long id, ModelCallRow* c) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, (std::string("SELECT ") + kModelCallColumns + " FROM model_calls WHERE id = ?").c_str());
  if (!st.ok()) return sql_error(h_, "preparing model call read");
  st.bind(1, id);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no model call with id " + std::to_string(id));
  int i = 0;
  c->id = st.integer(i++);
  c->run_id = st.text(i++);
  c->problem = st.text(i++);
  c->trajectory = static_cast<int>(st.integer(i++));
  c->turn = static_cast<int>(st.integer(i++));
  c->attempt = static_cast<int>(st.integer(i++));
  c->started_at = st.text(i++);
  c->seconds = st.real(i++);
  c->outcome = st.text(i++);
  c->finish_reason = st.text(i++);
  c->model = st.text(i++);
  c->http_status = static_cast<int>(st.integer(i++));
  c->attempts = static_cast<int>(st.integer(i++));
  c->error = st.text(i++);
  const std::string where = "model call " + std::to_string(id);
  if (auto s = parse_json(st.text(i++), where + " retries", &c->retries); !s.ok) return s;
  c->input_tokens = st.opt_integer(i++);
  c->output_tokens = st.opt_integer(i++);
  c->reasoning_tokens = st.opt_integer(i++);
  const std::string request_sha = st.text(i++);
  c->request_is_canonical = st.integer(i++) != 0;
  if (auto s = parse_json(st.text(i++), where + " request", &c->request); !s.ok) return s;
  const std::string response_sha = st.text(i++);
  c->content = st.blob(i++);
  c->reasoning = st.blob(i++);
  if (auto s = get_blob(request_sha, &c->request_bytes); !s.ok) return s;
  if (auto s = get_blob(response_sha, &c->response_bytes); !s.ok) return s;
  return get_blob(c->request.value("system_sha256", ""), &c->system_text);
}

DbStatus RunStore::load_reply_content(long long id, std::string* content) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "SELECT content FROM model_calls WHERE id = ?");
  if (!st.ok()) return sql_error(h_, "preparing reply read");
  st.bind(1, id);
  if (st.step() != SQLITE_ROW) return DbStatus::failure("no model call with id " + std::to_string(id));
  *content = st.blob(0);
  return {};
}

DbStatus RunStore::count_model_calls(const std::string& run_id, const std::string& problem, int trajectory, int turn,
                                     int* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "SELECT COUNT(*) FROM model_calls WHERE run_id = ? AND problem = ? AND trajectory = ? AND turn = ?");
  if (!st.ok()) return sql_error(h_, "preparing model call count");
  st.bind(1, run_id).bind(2, problem).bind(3, trajectory).bind(4, turn);
  if (st.step() != SQLITE_ROW) return sql_error(h_, "counting model calls");
  *out = static_cast<int>(st.integer(0));
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
  Statement st(h_, "INSERT INTO run_events (run_id, at, kind, problem, trajectory, turn, message) VALUES (?,?,?,?,?,?,?)");
  if (!st.ok()) return sql_error(h_, "preparing event insert");
  st.bind(1, e.run_id).bind(2, e.at.empty() ? utc_timestamp_ms() : e.at).bind(3, e.kind).bind(4, e.problem);
  st.bind(5, e.trajectory).bind(6, e.turn).bind(7, e.message);
  if (st.step() != SQLITE_DONE) return sql_error(h_, "storing event");
  return {};
}

DbStatus RunStore::load_events(const std::string& run_id, std::vector<RunEvent>* out) {
  std::lock_guard lock(mutex_);
  if (!status_.ok) return status_;
  Statement st(h_, "SELECT id, run_id, at, kind, message, problem, trajectory, turn FROM run_events WHERE run_id = ? ORDER BY id");
  if (!st.ok()) return sql_error(h_, "preparing event read");
  st.bind(1, run_id);
  int rc;
  while ((rc = st.step()) == SQLITE_ROW)
    out->push_back({st.integer(0), st.text(1), st.text(2), st.text(3), st.text(4), st.text(5),
                    static_cast<int>(st.integer(6)), static_cast<int>(st.integer(7))});
  return rc == SQLITE_DONE ? DbStatus{} : sql_error(h_, "reading events");
}

}  // namespace ptxbench
