// The Fixit error class of a judged turn, from its stored evaluation alone, with its signature.
#include "fixit_core/error_class.h"

#include <cctype>
#include <cmath>

#include "compile/static_checks.h"
#include "core/error_state.h"

namespace ptxbench::fixit {
namespace {

std::string text(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& array(const json& j, const char* key) {
  static const json kEmpty = json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

// The stage that decided the verdict: the first failed stage that carries it.
const StageResult* deciding_stage(const EvaluationRecord& r) {
  const std::string verdict(to_string(r.verdict));
  for (const auto& s : r.stages)
    if (s.status == StageStatus::failed && text(s.detail, "verdict") == verdict) return &s;
  for (const auto& s : r.stages)
    if (s.status == StageStatus::failed) return &s;
  return nullptr;
}

std::string shape_key(const json& shape) {
  if (!shape.is_object()) return "";
  std::string s;
  for (const auto& [k, v] : shape.items())
    if (v.is_number_integer()) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v.get<long long>());
  return s;
}

ErrorClass make(std::string name, json detail, const std::vector<std::string>& parts) {
  std::string sig = name;
  for (const auto& p : parts) sig += "/" + (p.empty() ? std::string("-") : p);
  return {std::move(name), std::move(detail), std::move(sig)};
}

ErrorClass compile_error(const EvaluationRecord& r) {
  const StageResult* b = r.stage("build");
  for (const auto& d : b ? array(b->detail, "diagnostics") : array(json(), "")) {
    const std::string sev = text(d, "severity");
    if (sev != "error" && sev != "fatal") continue;
    const std::string tool = text(d, "tool").empty() ? "unknown" : text(d, "tool");
    const std::string tmpl = message_template(text(d, "message"));
    return make("compile_error", {{"tool", tool}, {"message_template", tmpl}, {"line", d.value("line", 0)}},
                {tool, tmpl});
  }
  return make("compile_error", {{"tool", "unknown"}, {"message_template", ""}}, {"unknown"});
}

ErrorClass forbidden(const StageResult* s) {
  std::string stage = s ? s->name : "unknown", rule;
  if (s) {
    if (const auto& findings = array(s->detail, "findings"); !findings.empty()) rule = text(findings[0], "rule");
    else if (const auto& violations = array(s->detail, "violations"); !violations.empty())
      rule = text(violations[0], "rule");
    else if (!text(s->detail, "rule").empty()) rule = text(s->detail, "rule");
    else rule = text(s->detail, "kind");
  }
  if (rule.empty()) rule = "unrecorded";
  return make("forbidden", {{"stage", stage}, {"rule", rule}}, {stage, rule});
}

ErrorClass runtime_error(const StageResult* s) {
  const std::string stage = s ? s->name : "unknown";
  std::string kind = s ? text(s->detail, "kind") : "";
  if (kind.empty()) kind = "stage_failure";  // the worker's own stage report (a CUDA error it caught)
  json detail = {{"stage", stage}, {"kind", kind}};
  if (s && s->detail.contains("signal")) detail["signal"] = s->detail["signal"];
  return make("runtime_error", detail, {stage, kind});
}

ErrorClass sanitizer_error(const StageResult* s) {
  std::string tool = s ? text(s->detail, "tool") : "", finding = s ? text(s->detail, "first_finding") : "";
  if (s && tool.empty())  // records from before the tool was recorded: the check that counted errors
    for (const char* check : {"memcheck", "racecheck", "synccheck"})
      if (s->detail.contains(check) && s->detail[check].value("errors", 0LL) > 0) {
        tool = check;
        break;
      }
  if (tool.empty()) tool = "unknown";
  const std::string tmpl = message_template(finding);
  return make("sanitizer_error", {{"tool", tool}, {"finding_template", tmpl}}, {tool, tmpl});
}

// The first output of a failed check that failed, and why.
std::pair<std::string, std::string> failing_output(const json& check_detail) {
  if (!text(check_detail, "modified_inputs").empty()) return {text(check_detail, "modified_inputs"), "modified_inputs"};
  for (const auto& out : array(check_detail, "outputs")) {
    const double nonfinite = out.value("nonfinite", 0.0), bad = out.value("mismatches", 0.0);
    double rel = out.value("rel_l2_err", 0.0), limit = 0;
    if (out.contains("tolerance") && out["tolerance"].is_object()) limit = out["tolerance"].value("max_rel_l2", 0.0);
    const std::string name = text(out, "output").empty() ? "output" : text(out, "output");
    if (nonfinite > 0) return {name, "nonfinite"};
    if (bad > 0 || (limit > 0 && rel > limit)) return {name, "mismatch"};
  }
  return {"unknown", "mismatch"};
}

ErrorClass incorrect(const StageResult* s) {
  const std::string stage = s ? s->name : "unknown";
  json detail = {{"stage", stage}};
  std::string output = "unknown", why = "mismatch", hidden = "listed";
  if (s && stage == "timing") {
    why = "timed_check";
  } else if (s && stage == "stream_discipline") {
    why = "stream_discipline";
  } else if (s) {
    if (const auto& failures = array(s->detail, "failures"); !failures.empty()) {
      const json& f = failures[0];
      if (f.value("hidden", false)) hidden = "hidden";
      detail["shape"] = shape_key(f.value("shape", json::object()));
      std::tie(output, why) = failing_output(f.value("detail", json::object()));
    }
  }
  detail["output"] = output;
  detail["why"] = why;
  detail["shape_kind"] = hidden;
  return make("incorrect", detail, {stage, output, why, hidden});
}

ErrorClass correct_no_target(const EvaluationRecord& r, const ProblemSpec* problem) {
  std::vector<std::string> missing;
  json executed = json::object();
  for (const auto& [op, n] : r.executed_families) executed[op] = n;
  if (const ArchTargets* t = problem ? problem->targets_for(r.arch) : nullptr) {
    for (const auto& group : t->groups)
      if (!groups_satisfied(r.executed_families, {group})) {
        std::string g;
        for (const auto& glob : group) g += (g.empty() ? "" : "|") + glob;
        missing.push_back(g);
      }
  }
  std::string key;
  for (const auto& m : missing) key += (key.empty() ? "" : "+") + m;
  // Every group ran, but the strict flag is false: the targets fell short of the problem's work.
  if (key.empty()) key = r.target_seen.value_or(false) ? "short_of_the_work" : "unknown";
  return make("correct_no_target",
              {{"missing_groups", missing},
               {"executed_families", executed},
               {"tensor_flop_share", r.tensor_flop_share ? json(*r.tensor_flop_share) : json(nullptr)},
               {"tma_byte_share", r.tma_byte_share ? json(*r.tma_byte_share) : json(nullptr)}},
              {key});
}

std::string speed_band(double s) {
  if (s < 0.1) return "<0.1x";
  if (s < 0.25) return "0.1-0.25x";
  if (s < 0.5) return "0.25-0.5x";
  if (s < 0.75) return "0.5-0.75x";
  if (s < 1.0) return "0.75-1x";
  return ">=1x";
}

}  // namespace

std::string message_template(const std::string& message) {
  std::string out;
  for (size_t i = 0; i < message.size() && out.size() < 160;) {
    const char c = message[i];
    if (c == '"' || c == '\'' || c == '`') {
      const size_t close = message.find(c == '`' ? '\'' : c, i + 1);
      const size_t end = close == std::string::npos ? message.find(c, i + 1) : close;
      if (end != std::string::npos && end - i < 200) {
        out += "\"_\"";
        i = end + 1;
        continue;
      }
    }
    if (std::isdigit(static_cast<unsigned char>(c)) &&
        (out.empty() || !std::isalpha(static_cast<unsigned char>(out.back())))) {
      while (i < message.size() &&
             (std::isxdigit(static_cast<unsigned char>(message[i])) || message[i] == 'x' || message[i] == '.'))
        ++i;
      out += 'N';
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      ++i;
      continue;
    }
    out += c;
    ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::optional<ErrorClass> classify(const EvaluationRecord& r, const ProblemSpec* problem, const ClassifyOptions& o) {
  const StageResult* s = deciding_stage(r);
  switch (r.verdict) {
    case Verdict::compile_error: return compile_error(r);
    case Verdict::forbidden: return forbidden(s);
    case Verdict::runtime_error: return runtime_error(s);
    case Verdict::sanitizer_error: return sanitizer_error(s);
    case Verdict::incorrect: return incorrect(s);
    case Verdict::infra_error:
    case Verdict::not_run: return std::nullopt;
    case Verdict::correct: break;
  }
  const std::string state = judged_state(r.verdict, r.target_executed);
  if (state == kCorrectNoTarget) return correct_no_target(r, problem);
  if (state != kTargetCorrect || o.slow_below <= 0 || !r.speedup_geomean || *r.speedup_geomean >= o.slow_below)
    return std::nullopt;
  return make("correct_slow",
              {{record_key::speedup_geomean, *r.speedup_geomean}, {"band", speed_band(*r.speedup_geomean)}},
              {speed_band(*r.speedup_geomean)});
}

}  // namespace ptxbench::fixit
