#include "store/fixit_columns.h"

namespace ptxbench::store_detail {

const Columns<FixitBuildRow>& fixit_build_columns() {
  using C = Make<FixitBuildRow>;
  using B = FixitBuildRow;
  static const Columns<FixitBuildRow> c(
      "fixit_builds",
      {C::text("id", &B::id), C::text("created_at", &B::created_at), C::text("updated_at", &B::updated_at),
       C::text("status", &B::status), C::text("stop_reason", &B::stop_reason), C::text("recipe_name", &B::recipe_name),
       C::text("recipe_sha256", &B::recipe_sha256), C::text("recipe_text", &B::recipe_text),
       C::text("template", &B::template_kind), C::text("teacher", &B::teacher),
       C::json_or_empty("config_json", &B::config), C::json_or_empty("summary_json", &B::summary)});
  return c;
}

const Columns<StoredFixitItem>& fixit_item_columns() {
  using C = Make<StoredFixitItem>;
  using I = StoredFixitItem;
  static const Columns<StoredFixitItem> c(
      "fixit_items",
      {C::text("build_id", &I::build_id), C::text("item_key", &I::item_key), C::integer("ordinal", &I::ordinal),
       C::text("problem", &I::problem), C::text("split", &I::split), C::text("template", &I::template_kind),
       C::text("error_class", &I::error_class), C::text("signature", &I::signature), C::text("status", &I::status),
       C::text("reason", &I::reason), C::text("kernel_hash", &I::kernel_hash), C::text("fix_source", &I::fix_source),
       C::json_or_empty("source_json", &I::source), C::json_or_empty("context_json", &I::context),
       C::json_or_empty("error_json", &I::error), C::text("updated_at", &I::updated_at)});
  return c;
}

const Columns<StoredFixitAttempt>& fixit_attempt_columns() {
  using C = Make<StoredFixitAttempt>;
  using A = StoredFixitAttempt;
  static const Columns<StoredFixitAttempt> c("fixit_attempts",
                                             {C::text("build_id", &A::build_id),
                                              C::text("item_key", &A::item_key),
                                              C::integer("attempt", &A::attempt),
                                              C::text("kind", &A::kind),
                                              C::integer("teacher_index", &A::teacher_index),
                                              C::text("phase", &A::phase),
                                              C::text("prompt_version", &A::prompt_version),
                                              C::text("source_turn", &A::source_turn),
                                              C::text("model", &A::model),
                                              C::text("outcome", &A::outcome),
                                              C::text("finish_reason", &A::finish_reason),
                                              C::text("error", &A::error),
                                              C::integer("http_status", &A::http_status),
                                              C::real("seconds", &A::seconds),
                                              C::opt_integer("input_tokens", &A::input_tokens),
                                              C::opt_integer("output_tokens", &A::output_tokens),
                                              C::opt_integer("reasoning_tokens", &A::reasoning_tokens),
                                              C::opt_real("cost_usd", &A::cost_usd),
                                              C::json_or_empty("request_json", &A::request),
                                              C::text("request_sha256", &A::request_sha256),
                                              C::text("response_sha256", &A::response_sha256),
                                              C::text("system_sha256", &A::system_sha256),
                                              C::blob("content", &A::content),
                                              C::blob("reasoning", &A::reasoning),
                                              C::opt_text("candidate_sha256", &A::candidate_sha256),
                                              C::opt_integer("evaluation_id", &A::evaluation_id),
                                              C::text("verdict", &A::verdict),
                                              C::boolean("accepted", &A::accepted),
                                              C::text("why", &A::why),
                                              C::blob("explanation", &A::explanation),
                                              C::blob("feedback", &A::feedback),
                                              C::text("created_at", &A::created_at),
                                              C::text("updated_at", &A::updated_at)});
  return c;
}

const Columns<FixitRecordRow>& fixit_record_columns() {
  using C = Make<FixitRecordRow>;
  using R = FixitRecordRow;
  static const Columns<FixitRecordRow> c(
      "fixit_records", {C::text("build_id", &R::build_id), C::text("item_key", &R::item_key),
                        C::json_or_empty("record_json", &R::record), C::boolean("in_dataset", &R::in_dataset),
                        C::text("excluded_reason", &R::excluded_reason), C::text("created_at", &R::created_at)});
  return c;
}

}  // namespace ptxbench::store_detail
