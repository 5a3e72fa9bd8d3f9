// The metrics' in-memory model of runs and turns: turn states by name both ways.
#include "metrics/turn_model.h"

#include <array>
#include <set>
#include <tuple>
#include <utility>

#include "core/error.h"

namespace ptxbench::metrics {
namespace {

constexpr std::array<std::pair<TurnState, std::string_view>, 17> kStates{{
    {TurnState::compile_error, "compile_error"},
    {TurnState::forbidden, "forbidden"},
    {TurnState::runtime_error, "runtime_error"},
    {TurnState::sanitizer_error, "sanitizer_error"},
    {TurnState::incorrect, "incorrect"},
    {TurnState::correct, "correct"},
    {TurnState::no_code, "no_code"},
    {TurnState::truncated, "truncated"},
    {TurnState::refused, "refused"},
    {TurnState::empty, "empty"},
    {TurnState::reasoning_only, "reasoning_only"},
    {TurnState::request_too_large, "request_too_large"},
    {TurnState::provider_error, "provider_error"},
    {TurnState::infra_error, "infra_error"},
    {TurnState::quota_exhausted, "quota_exhausted"},
    {TurnState::not_run, "not_run"},
    {TurnState::pending, "pending"},
}};

}  // namespace

std::string_view to_string(TurnState s) {
  for (const auto& [state, name] : kStates)
    if (state == s) return name;
  return "pending";
}

std::optional<TurnState> turn_state_from_string(std::string_view s) {
  for (const auto& [state, name] : kStates)
    if (name == s) return state;
  return std::nullopt;
}

std::string known_turn_states() {
  std::string out;
  for (const auto& [state, name] : kStates) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

bool is_excluded(TurnState s) {
  return s == TurnState::infra_error || s == TurnState::quota_exhausted || s == TurnState::not_run;
}

bool is_counted(TurnState s) { return !is_excluded(s) && s != TurnState::pending; }

const RunInfo* TurnSet::run(const std::string& id) const {
  for (const auto& r : runs)
    if (r.id == id) return &r;
  return nullptr;
}

RunInfo* TurnSet::run(const std::string& id) {
  for (auto& r : runs)
    if (r.id == id) return &r;
  return nullptr;
}

void TurnSet::append(TurnSet other) {
  for (auto& r : other.runs) {
    if (const RunInfo* have = run(r.id))
      throw InputError("run '" + r.id + "' appears in both " + have->source + " and " + r.source +
                       " (give each run once)");
    runs.push_back(std::move(r));
  }
  turns.insert(turns.end(), std::make_move_iterator(other.turns.begin()), std::make_move_iterator(other.turns.end()));
}

void derive_finished(TurnSet& set, const std::string& run_id) {
  const RunInfo* run = set.run(run_id);
  if (!run) return;
  // (problem, trajectory) -> the turns 1..budget that are stored and not pending
  std::map<std::pair<std::string, int>, std::set<int>> done;
  for (const auto& t : set.turns)
    if (t.run == run_id && t.state != TurnState::pending && t.turn >= 1 && t.turn <= run->turns)
      done[{t.problem, t.trajectory}].insert(t.turn);
  for (auto& t : set.turns)
    if (t.run == run_id) {
      auto it = done.find({t.problem, t.trajectory});
      t.finished = it != done.end() && static_cast<int>(it->second.size()) == run->turns;
    }
}

std::string knowledge_condition(const std::string& knowledge, const json& run_config) {
  if (!run_config.is_object() || !run_config.contains("repair_notes") || !run_config["repair_notes"].is_object())
    return knowledge;
  const json& n = run_config["repair_notes"];
  if (n.value("source", "").empty()) return knowledge;
  return knowledge + (n.value("with_fixed_kernel", false) ? "+notes+kernel" : "+notes") +
         (n.value("same_problem", false) ? "@same-problem" : "");
}

}  // namespace ptxbench::metrics
