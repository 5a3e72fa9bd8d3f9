// Renders the feedback a model gets after a turn from its evaluation record, by verdict.
#include "agent/feedback.h"

#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>
#include <vector>

namespace ptxbench {
namespace {

constexpr int kMaxCompileErrors = 5;
constexpr int kMaxSanitizerLines = 12;
constexpr int kMaxOutputLines = 15;
constexpr int kMaxMismatchShapes = 3;

// Tolerant JSON access: a missing key or another type gives the fallback.
const json* find(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}
std::string text(const json& j, const char* key, const std::string& fallback = "") {
  const json* v = find(j, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}
std::optional<double> number(const json& j, const char* key) {
  const json* v = find(j, key);
  if (v && v->is_number()) return v->get<double>();
  return std::nullopt;
}
const json& array(const json& j, const char* key) {
  static const json kEmpty = json::array();
  const json* v = find(j, key);
  return v && v->is_array() ? *v : kEmpty;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> first_lines(const std::string& s, int n, int* dropped = nullptr) {
  std::vector<std::string> out;
  std::istringstream in(s);
  int total = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (++total <= n) out.push_back(line);
  }
  if (dropped) *dropped = total > n ? total - n : 0;
  return out;
}

// "M=128 N=256 K=64" in the problem's dim order when it is known.
std::string shape_text(const json& shape, const ProblemSpec* p) {
  if (!shape.is_object()) return "?";
  std::string s;
  auto add = [&](const std::string& k) {
    if (const json* v = find(shape, k.c_str()); v && v->is_number_integer())
      s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v->get<long long>());
  };
  if (p)
    for (const auto& d : p->dims) add(d);
  if (s.empty())
    for (const auto& [k, v] : shape.items()) add(k);
  return s;
}

std::string shape_text(const std::map<std::string, long long>& shape, const ProblemSpec* p) {
  return shape_text(json(shape), p);
}

std::string library_name(const EvaluationRecord& r, const ProblemSpec* p) {
  if (const auto* t = r.stage("timing"))
    if (const json* b = find(t->detail, "baseline"); b)
      if (auto lib = text(*b, "library"); !lib.empty()) return lib;
  return p ? p->baseline : "the library";
}

bool glob_match(const std::string& glob, const std::string& s) {
  // '*' matches any run of characters (the problem.toml target globs: "*GMMA", "UTC*").
  size_t g = 0, i = 0, star = std::string::npos, mark = 0;
  while (i < s.size()) {
    if (g < glob.size() && glob[g] == s[i]) ++g, ++i;
    else if (g < glob.size() && glob[g] == '*') star = g++, mark = i;
    else if (star != std::string::npos) g = star + 1, i = ++mark;
    else return false;
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

std::string group_name(const std::vector<std::string>& group) {
  std::string s;
  for (const auto& g : group) s += (s.empty() ? "" : "|") + g;
  return s;
}

// "*GMMA yes (HGMMA 48); UTMALDG|UTMASTG|UTMAREDG NO"
std::string groups_line(const std::vector<std::vector<std::string>>& groups,
                        const std::map<std::string, long long>& found) {
  std::string s;
  for (const auto& group : groups) {
    std::string hits;
    for (const auto& [op, n] : found)
      for (const auto& g : group)
        if (n > 0 && glob_match(g, op)) {
          hits += (hits.empty() ? "" : ", ") + op + " " + std::to_string(n);
          break;
        }
    s += (s.empty() ? "" : "; ") + group_name(group) + (hits.empty() ? " NO" : " yes (" + hits + ")");
  }
  return s;
}

// Whether the target instructions did the problem's work (the strict flag), with the shares.
void work_lines(std::ostringstream& o, const EvaluationRecord& r, const ArchTargets* targets) {
  char line[240];
  if (r.tensor_flop_share) {
    std::snprintf(line, sizeof line, "- share of the FLOPs done by warpgroup MMA: %.0f%%", *r.tensor_flop_share * 100);
    o << line;
    if (targets && targets->work.tensor_flop_share > 0)
      o << " (at least " << int(targets->work.tensor_flop_share * 100 + 0.5) << "% needed)";
    o << "\n";
  }
  if (r.tma_byte_share) {
    std::snprintf(line, sizeof line, "- bytes moved by TMA copies: %.3gx the operands' bytes", *r.tma_byte_share);
    o << line;
    if (targets && targets->work.tma_byte_share > 0) {
      std::snprintf(line, sizeof line,
                    " (the checked calls need at least %.3gx; each copy counts its kernel's smallest tensor-map box)",
                    targets->work.tma_byte_share);
      o << line;
    }
    o << "\n";
  }
  // The timed calls' allowlist (judge/timed_work.h): everything else's math, the TMA's share of loads.
  const StageResult* tr = r.stage("target_run");
  const json tw = tr && tr->detail.contains("timed_work") ? tr->detail.at("timed_work") : json();
  if (tw.is_object() && tw.value("counted", false)) {
    if (tw.contains("other_math_share")) {
      std::snprintf(
          line, sizeof line,
          "- FLOPs other instructions could have done (older MMAs such as mma.sync, the SIMT pipes, the rest): "
          "up to %.0f%%",
          tw.at("other_math_share").get<double>() * 100);
      o << line;
      if (targets) o << " (at most " << int(targets->work.max_other_math_share * 100 + 0.5) << "% allowed)";
      o << "\n";
    }
    if (tw.contains("tma_load_share")) {
      std::snprintf(line, sizeof line, "- share of the global bytes read that TMA brought: %.0f%%",
                    tw.at("tma_load_share").get<double>() * 100);
      o << line;
      if (targets && targets->work.tma_load_share > 0)
        o << " (at least " << int(targets->work.tma_load_share * 100 + 0.5) << "% needed)";
      o << "\n";
    }
  }
  if (!r.target_executed.has_value()) o << "- whether they did the work: unknown\n";
  else if (!*r.target_executed)
    o << "  -> the target instructions ran but did not do the work: "
      << (r.stage("target_run") ? r.stage("target_run")->message : "") << "\n";
}

void targets_section(std::ostringstream& o, const EvaluationRecord& r, const FeedbackContext& c) {
  const ArchTargets* targets = c.problem ? c.problem->targets_for(r.arch) : nullptr;
  const StageResult* st = r.stage("static");
  if (!st || st->status != StageStatus::ok) return;
  o << "\nTarget instructions (every group must execute):\n";
  if (targets) o << "- in the SASS of the built file: " << groups_line(targets->groups, r.static_families) << "\n";
  else
    o << "- in the SASS of the built file: "
      << (r.target_static ? "every target group present" : "target groups missing") << "\n";
  const StageResult* tr = r.stage("target_run");
  if (!tr) {
    o << "- executed at run time: not measured\n";
  } else if (tr->status == StageStatus::ok && tr->detail.is_object() && tr->detail.value("counted", true) == false) {
    o << "- executed at run time: none (calls not counted: " << text(tr->detail, "why") << ")\n";
  } else if (tr->status == StageStatus::ok && (r.target_executed.has_value() || r.target_seen.has_value())) {
    const bool seen = r.target_seen.value_or(r.target_executed.value_or(false));
    o << "- executed at run time: "
      << (targets ? groups_line(targets->groups, r.executed_families) : (seen ? "every group" : "NOT every group"))
      << (seen ? "" : "  -> the kernel that ran does not use every target group") << "\n";
    if (seen) work_lines(o, r, targets);
  } else if (tr->status == StageStatus::failed && text(tr->detail, "verdict") == "infra_error") {
    o << "- executed at run time: unknown (the instruction counter failed on the harness side: " << tr->message
      << ")\n";
  } else if (tr->status == StageStatus::ok) {
    o << "- executed at run time: unknown\n";
  } else {
    o << "- executed at run time: not measured (" << tr->message << ")\n";
  }
}

void speed_section(std::ostringstream& o, const EvaluationRecord& r, const FeedbackContext& c) {
  if (r.timing.empty()) return;
  const std::string lib = library_name(r, c.problem);
  o << "\nSpeed against " << lib << " (median time per call; speedup = library time / your time):\n";
  for (const auto& t : r.timing) {
    o << "- " << shape_text(t.shape, c.problem) << ": " << fmt("%.4f", t.median_ms) << " ms vs "
      << fmt("%.4f", t.baseline_median_ms) << " ms -> " << fmt("%.3fx", t.speedup) << " (" << fmt("%.1f", t.tflops)
      << " vs " << fmt("%.1f", t.baseline_tflops) << " TFLOP/s)"
      << (t.throttled ? " [GPU throttled during sampling]" : "") << "\n";
  }
  if (r.speedup_geomean) o << "Geometric mean speedup: " << fmt("%.3fx", *r.speedup_geomean) << "\n";
}

void compile_section(std::ostringstream& o, const EvaluationRecord& r) {
  const StageResult* b = r.stage("build");
  o << "The file did not compile.\n";
  if (!b) return;
  std::vector<std::string> errors;
  int total = 0;
  for (const auto& d : array(b->detail, "diagnostics")) {
    const std::string sev = text(d, "severity");
    if (sev != "error" && sev != "fatal") continue;
    ++total;
    if (static_cast<int>(errors.size()) >= kMaxCompileErrors) continue;
    std::string file = map_build_paths(text(d, "file"), r);
    const auto line = number(d, "line").value_or(0);
    std::string where =
        file.empty() ? "" : file + (line > 0 ? ":" + std::to_string(static_cast<long long>(line)) : "") + ": ";
    if (file.ends_with(".ptx")) where += "(a line of the generated PTX) ";
    errors.push_back(where + sev + ": " + map_build_paths(text(d, "message"), r));
  }
  if (!errors.empty()) {
    o << "First errors"
      << (total > static_cast<int>(errors.size())
              ? " (" + std::to_string(errors.size()) + " of " + std::to_string(total) + ")"
              : "")
      << ":\n";
    for (const auto& e : errors) o << "  " << e << "\n";
    return;
  }
  int dropped = 0;
  auto lines = first_lines(map_build_paths(text(b->detail, "log"), r), kMaxOutputLines, &dropped);
  o << "Compiler output" << (dropped ? " (first " + std::to_string(lines.size()) + " lines)" : "") << ":\n";
  for (const auto& l : lines) o << "  " << l << "\n";
  if (lines.empty()) o << "  " << map_build_paths(b->message, r) << "\n";
}

const StageResult* first_failed(const EvaluationRecord& r) {
  for (const auto& s : r.stages)
    if (s.status == StageStatus::failed) return &s;
  return nullptr;
}

void forbidden_section(std::ostringstream& o, const EvaluationRecord& r) {
  const StageResult* f = first_failed(r);
  o << "The file was rejected: it does something the rules forbid.\n";
  if (!f) return;
  o << "Reason (" << f->name << "): " << map_build_paths(f->message, r) << "\n";
  const auto& items = array(f->detail, "forbidden");
  if (items.size() > 1) {
    o << "All findings:\n";
    int n = 0;
    for (const auto& item : items)
      if (item.is_string() && n++ < 8) o << "  - " << map_build_paths(item.get<std::string>(), r) << "\n";
  }
}

void runtime_section(std::ostringstream& o, const EvaluationRecord& r) {
  const StageResult* f = first_failed(r);
  o << "The kernel failed at run time.\n";
  if (!f) return;
  o << "During " << f->name << ": " << f->message << "\n";
  int dropped = 0;
  auto lines = first_lines(text(f->detail, "output"), kMaxOutputLines, &dropped);
  if (!lines.empty()) {
    o << "Your program's output (stdout/stderr" << (dropped ? ", first " + std::to_string(lines.size()) + " lines" : "")
      << "):\n";
    for (const auto& l : lines) o << "  " << l << "\n";
  }
}

void sanitizer_section(std::ostringstream& o, const EvaluationRecord& r) {
  const StageResult* s = r.stage("sanitize");
  o << "compute-sanitizer found errors (on a small shape).\n";
  if (!s) return;
  o << s->message << "\n";
  for (const char* check : {"memcheck", "racecheck", "synccheck"}) {
    const json* c = find(s->detail, check);
    if (!c || number(*c, "errors").value_or(0) <= 0) continue;
    int dropped = 0;
    auto lines = first_lines(text(*c, "report"), kMaxSanitizerLines, &dropped);
    o << check << " (" << static_cast<long long>(number(*c, "errors").value_or(0)) << " error(s))"
      << (dropped ? ", first " + std::to_string(lines.size()) + " lines" : "") << ":\n";
    for (const auto& l : lines) o << "  " << l << "\n";
  }
}

void mismatch_section(std::ostringstream& o, const EvaluationRecord& r, const FeedbackContext& c) {
  const StageResult* f = first_failed(r);
  o << "The output is wrong.\n";
  if (!f) return;
  o << f->message << "\n";
  const auto& failures = array(f->detail, "failures");
  int shown = 0;
  for (const auto& fail : failures) {
    if (shown++ >= kMaxMismatchShapes) break;
    const json* shape = find(fail, "shape");
    const json* hidden = find(fail, "hidden");
    o << "On " << (shape ? shape_text(*shape, c.problem) : "?")
      << (hidden && hidden->is_boolean() && hidden->get<bool>() ? " (a shape not listed in the problem)" : "") << ":\n";
    const json* detail = find(fail, "detail");
    bool any = false;
    for (const auto& out : detail ? array(*detail, "outputs") : array(json::object(), "x")) {
      const std::string name = text(out, "output", "output");
      const auto elements = number(out, "elements"), bad = number(out, "mismatches"),
                 nonfinite = number(out, "nonfinite");
      const auto rel_l2 = number(out, "rel_l2_err"), max_abs = number(out, "max_abs_err");
      const json* tol = find(out, "tolerance");
      // Plain values, not an optional: GCC 12 at -O3 misreads a conditionally made optional as uninitialized.
      double limit = 0;
      bool has_limit = false;
      if (tol)
        if (const auto l = number(*tol, "max_rel_l2")) limit = *l, has_limit = true;
      const bool failed =
          (bad && *bad > 0) || (nonfinite && *nonfinite > 0) || (rel_l2 && has_limit && *rel_l2 > limit);
      o << "  " << name << ": ";
      if (nonfinite && *nonfinite > 0) o << static_cast<long long>(*nonfinite) << " NaN/Inf element(s); ";
      if (bad && elements)
        o << static_cast<long long>(*bad) << " of " << static_cast<long long>(*elements)
          << " elements out of tolerance";
      if (const json* w = find(out, "worst"); w && failed) {
        o << "; worst at";
        for (const char* k : {"row", "col", "index"})
          if (auto v = number(*w, k)) o << " " << k << " " << static_cast<long long>(*v);
        if (auto got = number(*w, "got"), exp = number(*w, "expected"); got && exp)
          o << ": got " << fmt("%.6g", *got) << ", expected " << fmt("%.6g", *exp);
        if (auto ratio = number(out, "worst_err_over_tol")) o << " (" << fmt("%.3g", *ratio) << "x the tolerance)";
      }
      if (max_abs) o << "; max abs error " << fmt("%.4g", *max_abs);
      if (rel_l2)
        o << ", relative L2 error " << fmt("%.3g", *rel_l2) << (has_limit ? " (limit " + fmt("%.3g", limit) + ")" : "");
      o << (failed ? "" : " (passed)") << "\n";
      any = true;
    }
    if (!any) o << "  " << text(fail, "summary", "no detail recorded") << "\n";
  }
}

std::string not_run_reason(const EvaluationRecord& r) {
  for (const char* s : {"correctness", "sanitize", "timing"})
    if (const auto* st = r.stage(s); st && st->status == StageStatus::skipped && !st->message.empty())
      return st->message;
  return r.reason;
}

std::string header(const FeedbackContext& c, const std::string& state) {
  std::string h = "## Result of turn " + std::to_string(c.turn + 1);
  if (c.turns > 0) h += " of " + std::to_string(c.turns);
  return h + ": " + upper(state) + "\n\n";
}

std::string footer(const FeedbackContext& c) {
  if (c.turns > 0 && c.turn + 1 >= c.turns) return "";
  return "\nReply with the complete improved file in one ```" + std::string(code_fence_language(c.language)) +
         " block.\n";
}

}  // namespace

std::string map_build_paths(const std::string& s, const EvaluationRecord& r) {
  std::string out = s;
  auto replace_all = [&](const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  };
  replace_all(r.candidate_path, r.language == "triton" ? "candidate.py" : "candidate.cu");
  if (r.candidate_sha256.size() == 64) replace_all(r.candidate_sha256 + ".", "candidate.");
  // Any other absolute path: its base name (build folders, include folders of the harness).
  static const std::regex abs_path(R"((^|[\s'"(=])(/[^\s:'"()]*/)([^/\s:'"()]+))");
  return std::regex_replace(out, abs_path, "$1$3");
}

std::string render_feedback(const EvaluationRecord& r, const FeedbackContext& c) {
  std::ostringstream o;
  const std::string verdict(to_string(r.verdict));
  o << header(c, verdict);
  if (c.reused && c.reused_from_turn)
    o << "(This file is identical to the one of turn " << (*c.reused_from_turn + 1)
      << "; its result is repeated, not re-measured.)\n\n";
  else if (c.reused)
    o << "(This file is identical to one already judged in this run; its result is repeated, not re-measured.)\n\n";
  switch (r.verdict) {
    case Verdict::compile_error: compile_section(o, r); break;
    case Verdict::forbidden: forbidden_section(o, r); break;
    case Verdict::runtime_error: runtime_section(o, r); break;
    case Verdict::sanitizer_error: sanitizer_section(o, r); break;
    case Verdict::incorrect: mismatch_section(o, r, c); break;
    case Verdict::correct:
      o << "Correct on every checked shape"
        << (r.target_executed.value_or(false) ? ", and the target instructions did the work." : ".") << "\n";
      break;
    case Verdict::not_run:
      o << "No GPU stage ran: " << not_run_reason(r) << ".\nThe file was built and passed the static checks only; its "
        << "correctness, the instructions it executes and its speed were not measured.\n";
      break;
    case Verdict::infra_error:
      o << "The harness failed while judging this file (not your kernel's fault): " << r.reason << "\n";
      break;
  }
  if (r.verdict != Verdict::compile_error && r.verdict != Verdict::infra_error) targets_section(o, r, c);
  if (r.verdict == Verdict::correct) speed_section(o, r, c);
  FeedbackContext as_recorded = c;
  if (auto l = language_from_string(r.language)) as_recorded.language = *l;
  o << footer(as_recorded);
  return o.str();
}

std::string render_no_kernel_feedback(const std::string& state, const std::string& provider_outcome,
                                      const std::string& provider_error, const std::string& extraction_rule,
                                      const FeedbackContext& c) {
  std::ostringstream o;
  o << header(c, state);
  if (state == "no_code") {
    o << "Your reply contained no " << (c.language == Language::triton ? "Python" : "C/C++/CUDA") << " code block ("
      << extraction_rule << "), so nothing was compiled.";
    if (provider_outcome == "truncated") o << " The reply was cut off at the output token limit.";
    o << "\n";
  } else if (state == "truncated") {
    o << "Your reply was cut off at the output token limit before any code block.\n";
  } else if (state == "refused") {
    o << "The reply was refused or filtered by the provider" << (provider_error.empty() ? "" : ": " + provider_error)
      << ".\n";
  } else if (state == "reasoning_only") {
    o << "The reply held reasoning but no answer: the output token budget ran out before the answer.\n";
  } else if (state == "empty") {
    o << "The reply was empty.\n";
  } else if (state == "request_too_large") {
    o << "The request was too large for the model's context"
      << (provider_error.empty() ? "" : " (" + provider_error + ")") << ".\n";
  } else {
    o << "The provider returned an error" << (provider_error.empty() ? "" : ": " + provider_error) << ".\n";
  }
  o << footer(c);
  return o.str();
}

std::string one_line_summary(int turn, const std::string& state, std::optional<bool> target_executed,
                             std::optional<double> speedup) {
  std::string s = "turn " + std::to_string(turn + 1) + ": " + state;
  if (state == "correct") {
    s += target_executed ? (*target_executed ? ", targets executed" : ", targets NOT executed") : ", targets unknown";
    if (speedup) s += ", " + fmt("%.3fx", *speedup) + " the library";
  }
  return s;
}

}  // namespace ptxbench
