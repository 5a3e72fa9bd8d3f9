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
  using T = TurnRow;
  static const Columns<TurnRow> c("turns", {C::text("run_id", &T::run_id),
                                            C::text("problem", &T::problem),
                                            C::integer("trajectory", &T::trajectory),
                                            C::integer("turn", &T::turn),
                                            C::text("phase", &T::phase),
                                            C::text("state", &T::state),
                                            C::text("provider_outcome", &T::provider_outcome),
                                            C::integer("model_call_id", &T::model_call_id),
                                            C::opt_text("candidate_sha256", &T::candidate_sha256),
                                            C::json_text("extraction_json", &T::extraction, "extraction"),
                                            C::opt_integer("evaluation_id", &T::evaluation_id),
                                            C::boolean("reused_evaluation", &T::reused_evaluation),
                                            C::opt_text("verdict", &T::verdict),
                                            C::opt_boolean("target_static", &T::target_static),
                                            C::opt_boolean("target_executed", &T::target_executed),
                                            C::opt_boolean("target_correct", &T::target_correct),
                                            C::opt_real("speedup_geomean", &T::speedup_geomean),
                                            C::blob("feedback", &T::feedback),
                                            C::text("feedback_version", &T::feedback_version),
                                            C::json_text("context_json", &T::context, "context"),
                                            C::opt_integer("input_tokens", &T::input_tokens),
                                            C::opt_integer("output_tokens", &T::output_tokens),
                                            C::opt_integer("reasoning_tokens", &T::reasoning_tokens),
                                            C::integer("reasoning_chars", &T::reasoning_chars),
                                            C::opt_real("cost_usd", &T::cost_usd),
                                            C::real("model_seconds", &T::model_seconds),
                                            C::real("compile_wait_seconds", &T::compile_wait_seconds),
                                            C::real("prepare_seconds", &T::prepare_seconds),
                                            C::real("build_seconds", &T::build_seconds),
                                            C::real("gpu_wait_seconds", &T::gpu_wait_seconds),
                                            C::real("gpu_seconds", &T::gpu_seconds),
                                            C::text("started_at", &T::started_at),
                                            C::text("replied_at", &T::replied_at),
                                            C::text("finished_at", &T::finished_at)});
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
