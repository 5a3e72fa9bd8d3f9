// The library's stored clean timings as the judge uses them: matched per timed shape, checked, or replaced.
#include "judge/caches/library_timings.h"

#include "judge/stages/gpu_stages.h"

namespace ptxbench {
namespace {

LibraryTimingScope scope_of(const GpuStageRun& c) {
  return {c.problem.name, json{{"workload", c.problem.workload}, {"options", c.problem.workload_options}},
          c.options.timing_config, c.gpu.value("timing_environment", json())};
}

json& summary(GpuStageRun& c) {
  json& s = c.record.environment["library_timing_cache"];
  if (!s.is_object())
    s = {{"enabled", true},          {"check_samples", c.options.library_check_samples},
         {"hit_validated", 0},       {"miss", 0},
         {"revalidation_failed", 0}, {"stored", 0},
         {"shapes", json::array()}};
  return s;
}

// Never silent: a reason is both logged (the progress line) and kept in the record.
void say(GpuStageRun& c, const char* list, const std::string& why) {
  c.note("library timing cache: " + why);
  json& s = summary(c);
  if (!s.contains(list)) s[list] = json::array();
  s[list].push_back(why);
}

}  // namespace

void offer_library_timings(GpuStageRun& c, WorkerJob& job, const json& already_cached) {
  LibraryTimingSource* source = c.options.library_timings.get();
  if (!source || !job.timing) return;
  const LibraryTimingScope scope = scope_of(c);
  summary(c);
  if (!scope.environment.is_object() || scope.environment.value("gpu_uuid", "").empty()) {
    // An older worker: nothing can be matched, so nothing is offered or kept.
    say(c, "ignored", "off for this evaluation: the worker reported no timing environment (GPU UUID, driver, clocks)");
    c.record.environment["library_timing_cache"]["enabled"] = false;
    return;
  }
  json offered = json::object();
  for (const auto& item : *job.timing) {
    const std::string key = item.shape.dump();
    if (already_cached.is_object() && already_cached.contains(key)) continue;
    std::vector<json> rows;
    std::vector<std::string> ignored;
    std::string error;
    if (!source->find(scope, item.shape, &rows, &ignored, &error)) {
      say(c, "store_errors", "reading the stored timings of " + key + " failed: " + error);
      rows.clear();
    }
    for (const auto& why : ignored) say(c, "ignored", "a stored timing of " + key + " ignored: " + why);
    offered[key] = rows;
  }
  job.library_timing_cache = offered;
  job.library_timing_check_samples = c.options.library_check_samples;
}

void keep_library_timings(GpuStageRun& c, const WorkerRun& run) {
  LibraryTimingSource* source = c.options.library_timings.get();
  if (!source || !c.record.environment.contains("library_timing_cache") ||
      !c.record.environment["library_timing_cache"].value("enabled", false))
    return;
  json& s = summary(c);
  // A channel candidate code wrote to says nothing trustworthy; a GPU that changed speed or
  // throttled gives no timing to keep.
  std::string why_not_kept;
  if (run.tampered) why_not_kept = "the worker's result channel was tampered with";
  else if (const auto st = run.stage("timing"); st && st->value("verdict", "") == "infra_error")
    why_not_kept = "the GPU's speed changed during the evaluation";
  for (const auto& t : run.of_type("timing"))
    if (t.value("throttled", false) && why_not_kept.empty()) why_not_kept = "the GPU throttled during timing";
  const LibraryTimingScope scope = scope_of(c);
  // Only what the worker reported before its candidate loaded: a clean timing is taken then, and
  // nothing candidate code could write afterwards is kept for later candidates.
  std::vector<json> before_load;
  for (const auto& e : run.events) {
    if (e.value("type", "") == "progress" && e.value("stage", "") == "candidate_load") break;
    if (e.value("type", "") == "baseline_alone") before_load.push_back(e);
  }
  for (const auto& e : before_load) {
    const std::string outcome = e.value("library_cache", "");
    if (outcome.empty()) continue;  // the service's in-memory cache served it
    json shape_entry = {
        {"shape", e.value("shape", json())}, {"library_cache", outcome}, {"seconds", e.value("seconds", 0.0)}};
    if (e.contains("library_cache_reason")) shape_entry["reason"] = e.at("library_cache_reason");
    if (e.contains("check")) shape_entry["check"] = e.at("check");
    s["shapes"].push_back(shape_entry);
    if (outcome == "hit-validated") s["hit_validated"] = s["hit_validated"].get<int>() + 1;
    else if (outcome == "revalidation-failed") s["revalidation_failed"] = s["revalidation_failed"].get<int>() + 1;
    else s["miss"] = s["miss"].get<int>() + 1;
    if (outcome == "hit-validated") continue;  // nothing new measured
    if (!why_not_kept.empty()) {
      say(c, "not_stored",
          "the clean timing of " + e.value("shape", json()).dump() + " is not stored: " + why_not_kept);
      continue;
    }
    std::string error;
    if (!e.contains("library_key") || !e.contains("shape") ||
        !source->put(scope, e.at("shape"), e.value("library_key", json()), e, &error)) {
      say(c, "store_errors",
          "storing the clean timing of " + e.value("shape", json()).dump() +
              " failed: " + (error.empty() ? "the worker reported no key" : error));
      continue;
    }
    s["stored"] = s["stored"].get<int>() + 1;
  }
}

}  // namespace ptxbench
