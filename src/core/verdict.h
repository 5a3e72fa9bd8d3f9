// The error-state taxonomy shared by feedback, metrics and transition plots.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ptxbench {

enum class Verdict {
  compile_error,
  forbidden,        // links or loads a library kernel, bad ABI, escapes the sandbox
  runtime_error,    // CUDA error, crash, hang, process exit
  sanitizer_error,  // compute-sanitizer found a memory, race or sync error
  incorrect,        // wrong output, NaN/Inf, or modified inputs
  correct,
  infra_error,  // the harness or the GPU failed: never counted against the candidate
  not_run,      // only static stages ran (no GPU): no verdict on behaviour
};

std::string_view to_string(Verdict v);
std::optional<Verdict> verdict_from_string(std::string_view s);

// Distinct process exit codes for `ptxbench eval` (worst verdict across candidates wins).
int exit_code_for(Verdict v);

// True for verdicts that say something about the candidate (infra_error and not_run do not).
bool counts_against_candidate(Verdict v);

}  // namespace ptxbench
