// What the worker matches a stored library timing by, and the short check that re-validates it.
#include "runner/library_timing_check.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace ptxbench {
namespace {

const char* const kKeyFields[] = {"gpu_uuid", "driver", "clocks", "library", "library_version", "plan"};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// `v` without the seconds it took to build (they differ from run to run).
json without_seconds(json v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) it = ends_with(it.key(), "seconds") ? v.erase(it) : std::next(it);
    for (auto& [k, x] : v.items()) x = without_seconds(x);
  } else if (v.is_array()) {
    for (auto& x : v) x = without_seconds(x);
  }
  return v;
}

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The "dim=value" words of a label, in any order ("fwd" and other words without '=' left out).
std::set<std::string> dims_of(const std::string& label) {
  std::set<std::string> out;
  std::istringstream in(label);
  for (std::string w; in >> w;)
    if (w.find('=') != std::string::npos) out.insert(w);
  return out;
}

// Whether a workload's entry named `key` is about the shape labelled `label`: every dim of the
// label is in the key, whatever their order (shape_label sorts the dims, the workloads name them
// in their own order: "K=64 M=128 N=256" is "M=128 N=256 K=64", and cuDNN's "fwd B=2 H=16 ...").
bool names_shape(const std::string& key, const std::set<std::string>& label_dims) {
  if (label_dims.empty()) return false;
  const std::set<std::string> k = dims_of(key);
  return std::includes(k.begin(), k.end(), label_dims.begin(), label_dims.end());
}

}  // namespace

namespace {

// Three standard errors of a difference whose variance is `variance_in_stored_errors` times the
// stored median's (the check's own error from the stored samples' spread), within the bounds.
double three_errors_within_bounds(const StoredCleanTiming& s, double variance_in_stored_errors) {
  const double t = 3 * std::max(s.median_error, 0.0) * std::sqrt(variance_in_stored_errors);
  return std::clamp(std::isfinite(t) ? t : kLibraryCheckMaxTolerance, kLibraryCheckMinTolerance,
                    kLibraryCheckMaxTolerance);
}

double stored_over_check_samples(const StoredCleanTiming& s, int check_samples) {
  return double(std::max(s.samples, 1)) / std::max(check_samples, 1);
}

}  // namespace

double library_check_tolerance(const StoredCleanTiming& s, int check_samples) {
  return three_errors_within_bounds(s, 1 + stored_over_check_samples(s, check_samples));
}

double library_lead_check_tolerance(const StoredCleanTiming& s, int check_samples) {
  return three_errors_within_bounds(s, 2 * stored_over_check_samples(s, check_samples));
}

LibraryCheckVerdict judge_library_check(const StoredCleanTiming& s, double check_median_ms, int check_samples) {
  LibraryCheckVerdict v;
  v.against_lead = s.lead_median_ms > 0 && s.lead_samples == check_samples;
  v.tolerance =
      v.against_lead ? library_lead_check_tolerance(s, check_samples) : library_check_tolerance(s, check_samples);
  if (!(s.median_ms > 0) || !(check_median_ms > 0) || check_samples < 1) {
    v.deviation = 0;
    v.accepted = false;
    return v;
  }
  v.deviation = check_median_ms / (v.against_lead ? s.lead_median_ms : s.median_ms) - 1;
  v.accepted = std::fabs(v.deviation) <= v.tolerance;
  return v;
}

json library_plan_identity(const json& info, const std::string& label) {
  json plan = json::object();
  if (!info.is_object()) return plan;
  for (const char* f : {"operation", "compute", "operands", "algorithm", "epilogue", "workspace_bytes"})
    if (info.contains(f)) plan[f] = info.at(f);
  const std::set<std::string> dims = dims_of(label);
  for (const char* f : {"kernels", "plans", "shapes"}) {
    const auto it = info.find(f);
    if (it == info.end() || !it->is_object()) continue;
    for (const auto& [k, v] : it->items())
      if (k == label || names_shape(k, dims)) plan[f][k] = without_seconds(v);
  }
  return plan;
}

json library_timing_key(const json& env, const json& info, const std::string& label) {
  const json e = env.is_object() ? env : json::object();
  return {{"gpu_uuid", e.value("gpu_uuid", "")},
          {"driver", e.value("driver", "")},
          {"clocks", e.value("clocks", json::object())},
          {"library", info.is_object() ? info.value("library", "") : ""},
          {"library_version", info.is_object() && info.contains("version") ? text_of(info.at("version")) : ""},
          {"plan", library_plan_identity(info, label)}};
}

int matching_stored_timing(const json& rows, const json& key, std::string* why) {
  std::string first;
  if (rows.is_array())
    for (size_t i = 0; i < rows.size(); ++i) {
      const json& r = rows[i];
      std::string differs;
      for (const char* f : kKeyFields)
        if (!r.is_object() || !r.contains(f) || r.at(f) != key.value(f, json())) {
          differs = std::string(f) + " differs (stored " +
                    (r.is_object() && r.contains(f) ? text_of(r.at(f)) : "none") + ", now " +
                    text_of(key.value(f, json())) + ")";
          break;
        }
      if (differs.empty()) return static_cast<int>(i);
      if (first.empty()) first = "a stored timing's " + differs;
    }
  if (why) *why = rows.is_array() && !rows.empty() ? first : "no stored timing for this GPU, driver, clocks and shape";
  return -1;
}

}  // namespace ptxbench
