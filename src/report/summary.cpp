// Human-readable views of evaluation records: one record in full, or many as a table.
#include "report/summary.h"

#include "report/kernel_name.h"

#include <cstdio>
#include <sstream>

namespace ptxbench::report {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

std::string families(const std::map<std::string, long long>& f) {
  if (f.empty()) return "none";
  std::string s;
  for (const auto& [k, v] : f) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v);
  return s;
}

std::string shape_str(const std::map<std::string, long long>& shape) {
  std::string s;
  for (const auto& [k, v] : shape) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

std::string upper(std::string_view v) {
  std::string s(v);
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// "baseline: cuDNN (version)" and, per shape it ran, the kernels it launched.
std::string baseline_lines(const json& b) {
  std::ostringstream o;
  o << "\nbaseline: " << b.value("library", "?");
  if (b.contains("version"))
    o << " (" << (b["version"].is_string() ? b["version"].get<std::string>() : b["version"].dump()) << ")";
  o << "\n";
  if (b.contains("kernels") && b["kernels"].is_object())
    for (const auto& [label, kernels] : b["kernels"].items()) {
      std::string names;
      for (const auto& k : kernels) names += (names.empty() ? "" : " + ") + readable_kernel_name(k.get<std::string>());
      o << "  " << label << ": " << (names.empty() ? "(no kernel recorded)" : names) << "\n";
    }
  return o.str();
}

}  // namespace

std::string format_summary(const EvaluationRecord& r) {
  std::ostringstream o;
  o << "PTXBench  " << r.problem << "  " << r.candidate_path << "  (sha256 " << r.candidate_sha256.substr(0, 12)
    << ")\n";
  o << "arch " << r.arch << (r.gpu.empty() ? "" : ", GPU " + r.gpu) << "\n";
  o << "verdict: " << upper(to_string(r.verdict)) << "  - " << r.reason << "\n";
  o << "target instructions: in SASS " << (r.target_static ? "yes" : "no") << " (" << families(r.static_families)
    << ")";
  const auto* tr = r.stage("target_run");
  if (tr && tr->status == StageStatus::ok)
    o << "; executed "
      << (!r.target_seen   ? "unknown"
          : *r.target_seen ? "yes"
                           : "NO")
      << " (" << families(r.executed_families) << "); did the work "
      << (!r.target_executed   ? "unknown"
          : *r.target_executed ? "yes"
                               : "NO")
      << (r.tensor_flop_share
              ? fmt(" (tensor %.0f%% of FLOPs", *r.tensor_flop_share * 100) +
                    (r.tma_byte_share ? fmt(", TMA %.3gx operand bytes)", *r.tma_byte_share) : std::string(")"))
              : std::string());
  else o << "; executed: not measured";
  o << "\n\nstages:\n";
  for (const auto& s : r.stages) {
    o << "  " << pad(s.name, 18) << pad(std::string(to_string(s.status)), 8)
      << pad(s.seconds > 0 ? fmt("%.1f s", s.seconds) : "", 9) << s.message << "\n";
    if (s.name == "build" && s.status == StageStatus::failed && s.detail.contains("diagnostics")) {
      int n = 0;
      for (const auto& d : s.detail["diagnostics"]) {
        if (n++ == 5) break;
        o << "      " << d.value("file", "") << ":" << d.value("line", 0) << ": " << d.value("severity", "") << ": "
          << d.value("message", "") << "\n";
      }
    }
  }
  if (!r.timing.empty()) {
    o << "\ntiming (median of interleaved samples, L2 flushed, every output checked):\n";
    o << "  " << pad("shape", 26) << pad("candidate ms", 20) << pad("baseline ms", 20) << pad("TFLOP/s", 18)
      << "speedup\n";
    for (const auto& t : r.timing) {
      o << "  " << pad(shape_str(t.shape), 26)
        << pad(fmt("%.4f", t.median_ms) + " (" + fmt("%.1f%%", 100 * t.spread) + ")", 20)
        << pad(fmt("%.4f", t.baseline_median_ms) + " (" + fmt("%.1f%%", 100 * t.baseline_spread) + ")", 20)
        << pad(fmt("%.1f", t.tflops) + " / " + fmt("%.1f", t.baseline_tflops), 18) << fmt("%.3fx", t.speedup)
        << (t.throttled ? "  [throttled]" : "") << "\n";
    }
    if (r.speedup_geomean) o << "  geomean speedup vs baseline: " << fmt("%.3fx", *r.speedup_geomean) << "\n";
    int alone = 0;
    for (const auto& t : r.timing) alone += t.baseline_source == "alone";
    o << "  baseline: the faster of the library beside the candidate and alone (alone on " << alone << " of "
      << r.timing.size() << " shapes)\n";
  }
  if (const auto* t = r.stage("timing"); t && t->detail.contains("baseline"))
    o << baseline_lines(t->detail["baseline"]);
  return o.str();
}

std::string format_table(const std::vector<std::pair<long long, EvaluationRecord>>& rows) {
  std::ostringstream o;
  o << pad("id", 6) << pad("when", 22) << pad("problem", 16) << pad("verdict", 17) << pad("targets", 9)
    << pad("speedup", 9) << "candidate\n";
  for (const auto& [id, r] : rows) {
    o << pad(std::to_string(id), 6) << pad(r.created_at, 22) << pad(r.problem, 16)
      << pad(std::string(to_string(r.verdict)), 17)
      << pad(r.target_executed.value_or(false) ? "exec"
             : !r.target_executed              ? "unknown"
                                               : (r.target_static ? "static" : "-"),
             9)
      << pad(r.speedup_geomean ? fmt("%.3fx", *r.speedup_geomean) : "-", 9) << r.candidate_path << "\n";
  }
  return o.str();
}

}  // namespace ptxbench::report
