// The evaluation record to and from JSON, its stages and the verdict's name.
#include "core/record.h"

#include "core/bytes.h"
#include "core/error.h"
#include "core/json_integer.h"

namespace ptxbench {

std::string_view to_string(StageStatus s) {
  switch (s) {
    case StageStatus::ok: return "ok";
    case StageStatus::failed: return "failed";
    case StageStatus::skipped: return "skipped";
  }
  return "skipped";
}

static StageStatus stage_status_from(const std::string& s) {
  if (s == "ok") return StageStatus::ok;
  if (s == "failed") return StageStatus::failed;
  if (s == "skipped") return StageStatus::skipped;
  throw InputError("record: unknown stage status '" + s + "'");
}

StageResult* EvaluationRecord::stage(const std::string& name) {
  for (auto& s : stages)
    if (s.name == name) return &s;
  return nullptr;
}
const StageResult* EvaluationRecord::stage(const std::string& name) const {
  return const_cast<EvaluationRecord*>(this)->stage(name);
}
StageResult& EvaluationRecord::add_stage(StageResult s) {
  if (auto* existing = stage(s.name)) return *existing = std::move(s);
  stages.push_back(std::move(s));
  return stages.back();
}

json to_json(const EvaluationRecord& r) {
  json j;
  j["schema"] = r.schema;
  j["problem"] = r.problem;
  j["language"] = r.language;
  j["arch"] = r.arch;
  j["gpu"] = r.gpu;
  j["candidate"] = {{"path", r.candidate_path}, {"sha256", r.candidate_sha256}};
  j["created_at"] = r.created_at;
  j["verdict"] = std::string(to_string(r.verdict));
  j["reason"] = r.reason;
  j["target_static"] = r.target_static;
  j["target_executed"] = r.target_executed ? json(*r.target_executed) : json(nullptr);
  j["target_seen"] = r.target_seen ? json(*r.target_seen) : json(nullptr);
  j["tensor_flop_share"] = r.tensor_flop_share ? json(*r.tensor_flop_share) : json(nullptr);
  j["tma_byte_share"] = r.tma_byte_share ? json(*r.tma_byte_share) : json(nullptr);
  j["static_families"] = r.static_families;
  j["executed_families"] = r.executed_families;
  j["stages"] = json::array();
  for (const auto& s : r.stages)
    j["stages"].push_back({{"name", s.name},
                           {"status", std::string(to_string(s.status))},
                           {"seconds", s.seconds},
                           {"message", s.message},
                           {"detail", s.detail}});
  j["timing"] = json::array();
  for (const auto& t : r.timing)
    j["timing"].push_back({{"shape", t.shape},
                           {"median_ms", t.median_ms},
                           {"p10_ms", t.p10_ms},
                           {"p90_ms", t.p90_ms},
                           {"spread", t.spread},
                           {"samples", t.samples},
                           {"baseline_median_ms", t.baseline_median_ms},
                           {"baseline_spread", t.baseline_spread},
                           {"baseline_interleaved_ms", t.baseline_interleaved_ms},
                           {"baseline_alone_ms", t.baseline_alone_ms},
                           {"baseline_source", t.baseline_source},
                           {"baseline_samples", t.baseline_samples},
                           {"speedup", t.speedup},
                           {"tflops", t.tflops},
                           {"baseline_tflops", t.baseline_tflops},
                           {"throttled", t.throttled}});
  j[record_key::speedup_geomean] = r.speedup_geomean ? json(*r.speedup_geomean) : json(nullptr);
  j["environment"] = r.environment;
  // Strings that are not UTF-8 (a candidate's bytes in a log, a diagnostic, its output) stay
  // readable here and exact under non_utf8; every record has the key, so the shape is fixed.
  json exact = make_utf8_safe(j);
  j["non_utf8"] = std::move(exact);
  return j;
}

EvaluationRecord record_from_json(const json& stored) {
  try {
    json j = stored;
    if (auto b = stored.find("non_utf8"); b != stored.end()) {
      j.erase("non_utf8");
      restore_bytes(j, *b);
    }
    EvaluationRecord r;
    r.schema = json_integer<int>(j.at("schema"), "record.schema");
    r.problem = j.at("problem").get<std::string>();
    if (auto lang = j.find("language"); lang != j.end()) r.language = lang->get<std::string>();
    r.arch = j.at("arch").get<std::string>();
    r.gpu = j.at("gpu").get<std::string>();
    r.candidate_path = j.at("candidate").at("path").get<std::string>();
    r.candidate_sha256 = j.at("candidate").at("sha256").get<std::string>();
    r.created_at = j.at("created_at").get<std::string>();
    auto v = verdict_from_string(j.at("verdict").get<std::string>());
    if (!v) throw InputError("record: unknown verdict '" + j.at("verdict").get<std::string>() + "'");
    r.verdict = *v;
    r.reason = j.at("reason").get<std::string>();
    r.target_static = j.at("target_static").get<bool>();
    if (const auto& te = j.at("target_executed"); !te.is_null()) r.target_executed = te.get<bool>();
    if (auto ts = j.find("tensor_flop_share"); ts != j.end() && !ts->is_null()) r.tensor_flop_share = ts->get<double>();
    if (auto tb = j.find("tma_byte_share"); tb != j.end() && !tb->is_null()) r.tma_byte_share = tb->get<double>();
    // Before schema 3 target_executed was the loose flag.
    if (auto seen = j.find("target_seen"); seen != j.end()) {
      if (!seen->is_null()) r.target_seen = seen->get<bool>();
    } else {
      r.target_seen = r.target_executed;
    }
    r.static_families = json_integer_map(j.at("static_families"), "record.static_families");
    r.executed_families = json_integer_map(j.at("executed_families"), "record.executed_families");
    for (const auto& s : j.at("stages"))
      r.stages.push_back({s.at("name").get<std::string>(), stage_status_from(s.at("status").get<std::string>()),
                          s.at("seconds").get<double>(), s.at("message").get<std::string>(), s.at("detail")});
    for (const auto& t : j.at("timing")) {
      ShapeTiming st;
      st.shape = json_integer_map(t.at("shape"), "record.timing.shape");
      st.median_ms = t.at("median_ms").get<double>();
      st.p10_ms = t.at("p10_ms").get<double>();
      st.p90_ms = t.at("p90_ms").get<double>();
      st.spread = t.at("spread").get<double>();
      st.samples = json_integer<int>(t.at("samples"), "record.timing.samples");
      st.baseline_median_ms = t.at("baseline_median_ms").get<double>();
      st.baseline_spread = t.at("baseline_spread").get<double>();
      st.baseline_interleaved_ms = t.value("baseline_interleaved_ms", 0.0);
      st.baseline_alone_ms = t.value("baseline_alone_ms", 0.0);
      st.baseline_source = t.value("baseline_source", std::string());
      st.baseline_samples = json_integer<int>(t.at("baseline_samples"), "record.timing.baseline_samples");
      st.speedup = t.at("speedup").get<double>();
      st.tflops = t.at("tflops").get<double>();
      st.baseline_tflops = t.at("baseline_tflops").get<double>();
      st.throttled = t.at("throttled").get<bool>();
      r.timing.push_back(std::move(st));
    }
    if (const auto& s = j.at(record_key::speedup_geomean); !s.is_null()) r.speedup_geomean = s.get<double>();
    r.environment = j.at("environment");
    return r;
  } catch (const json::exception& e) {
    throw InputError(std::string("malformed evaluation record: ") + e.what());
  }
}

}  // namespace ptxbench
