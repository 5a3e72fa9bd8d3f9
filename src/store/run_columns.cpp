// The run store's tables' column bindings (run_columns.h).
#include "store/run_columns.h"

namespace ptxbench::store_detail {

const Columns<RunInfo>& run_columns() {
  using C = Make<RunInfo>;
  static const Columns<RunInfo> c(
      "runs", {C::text("id", &RunInfo::id), C::text("created_at", &RunInfo::created_at),
               C::text("updated_at", &RunInfo::updated_at), C::text("status", &RunInfo::status),
               C::text("stop_reason", &RunInfo::stop_reason), C::text("model", &RunInfo::model),
               C::text("arch", &RunInfo::arch), C::text("knowledge", &RunInfo::knowledge),
               C::comma_list("problems", &RunInfo::problems), C::integer("trajectories", &RunInfo::trajectories),
               C::integer("turns", &RunInfo::turns), C::text("identity_sha256", &RunInfo::identity_sha256),
               C::json_text("config_json", &RunInfo::config, "config"),
               C::json_text("provenance_json", &RunInfo::provenance, "provenance")});
  return c;
}

const Columns<TrajectoryRow>& trajectory_columns() {
  using C = Make<TrajectoryRow>;
  static const Columns<TrajectoryRow> c(
      "trajectories",
      {C::text("run_id", &TrajectoryRow::run_id), C::text("problem", &TrajectoryRow::problem),
       C::integer("trajectory", &TrajectoryRow::trajectory), C::integer("turns_done", &TrajectoryRow::turns_done),
       C::text("status", &TrajectoryRow::status)});
  return c;
}

const Columns<StoredModelCall>& model_call_columns() {
  using C = Make<StoredModelCall>;
  using M = StoredModelCall;
  static const Columns<StoredModelCall> c("model_calls", {C::integer("id", &M::id),
                                                          C::text("run_id", &M::run_id),
                                                          C::text("problem", &M::problem),
                                                          C::integer("trajectory", &M::trajectory),
                                                          C::integer("turn", &M::turn),
                                                          C::integer("attempt", &M::attempt),
                                                          C::text("started_at", &M::started_at),
                                                          C::real("seconds", &M::seconds),
                                                          C::text("outcome", &M::outcome),
                                                          C::text("finish_reason", &M::finish_reason),
                                                          C::text("model", &M::model),
                                                          C::integer("http_status", &M::http_status),
                                                          C::integer("attempts", &M::attempts),
                                                          C::text("error", &M::error),
                                                          C::json_text("retries_json", &M::retries, "retries"),
                                                          C::opt_integer("input_tokens", &M::input_tokens),
                                                          C::opt_integer("output_tokens", &M::output_tokens),
                                                          C::opt_integer("reasoning_tokens", &M::reasoning_tokens),
                                                          C::text("request_sha256", &M::request_sha256),
                                                          C::boolean("request_is_canonical", &M::request_is_canonical),
                                                          C::json_text("request_json", &M::request, "request"),
                                                          C::text("response_sha256", &M::response_sha256),
                                                          C::blob("content", &M::content),
                                                          C::blob("reasoning", &M::reasoning)});
  return c;
}

const Columns<TurnRow>& turn_columns() {
  using C = Make<TurnRow>;
  // One column per declared field (turn_row.h), named by its declaration.
#define PTXBENCH_TURN_COLUMN(storage, type, member, init, since, export_key, report, unit, note) \
  C::storage(TurnFieldInfo{#member, #storage, since, export_key, report != 0, unit, note}.column(), &TurnRow::member),
  static const Columns<TurnRow> c("turns", {PTXBENCH_TURN_FIELDS(PTXBENCH_TURN_COLUMN)});
#undef PTXBENCH_TURN_COLUMN
  return c;
}

const Columns<RunEvent>& run_event_columns() {
  using C = Make<RunEvent>;
  static const Columns<RunEvent> c(
      "run_events", {C::integer("id", &RunEvent::id), C::text("run_id", &RunEvent::run_id),
                     C::text("at", &RunEvent::at), C::text("kind", &RunEvent::kind),
                     C::text("problem", &RunEvent::problem), C::integer("trajectory", &RunEvent::trajectory),
                     C::integer("turn", &RunEvent::turn), C::text("message", &RunEvent::message)});
  return c;
}

}  // namespace ptxbench::store_detail
