// Verdict names both ways, the exit code each gives, and whether it counts against a candidate.
#include "core/verdict.h"

#include <array>
#include <utility>

namespace ptxbench {
namespace {
constexpr std::array<std::pair<Verdict, std::string_view>, 8> kNames{{
    {Verdict::compile_error, "compile_error"},
    {Verdict::forbidden, "forbidden"},
    {Verdict::runtime_error, "runtime_error"},
    {Verdict::sanitizer_error, "sanitizer_error"},
    {Verdict::incorrect, "incorrect"},
    {Verdict::correct, "correct"},
    {Verdict::infra_error, "infra_error"},
    {Verdict::not_run, "not_run"},
}};
}  // namespace

std::string_view to_string(Verdict v) {
  for (const auto& [verdict, name] : kNames)
    if (verdict == v) return name;
  return "unknown";
}

std::optional<Verdict> verdict_from_string(std::string_view s) {
  for (const auto& [verdict, name] : kNames)
    if (name == s) return verdict;
  return std::nullopt;
}

int exit_code_for(Verdict v) {
  // 0 correct, 1 usage/input error (set by the CLI), 2 not_run, 10+ candidate failures, 20 infra.
  switch (v) {
    case Verdict::correct: return 0;
    case Verdict::not_run: return 2;
    case Verdict::compile_error: return 10;
    case Verdict::forbidden: return 11;
    case Verdict::runtime_error: return 12;
    case Verdict::sanitizer_error: return 13;
    case Verdict::incorrect: return 14;
    case Verdict::infra_error: return 20;
  }
  return 20;
}

bool counts_against_candidate(Verdict v) { return v != Verdict::infra_error && v != Verdict::not_run; }

}  // namespace ptxbench
