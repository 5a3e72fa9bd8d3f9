// A problem's statement for one arch: problems/<name>/prompt.md holds only the problem-specific
// prose, with placeholders the harness fills from the spec and the toolchain, so the text is right
// for every arch and never drifts from problem.toml:
//   {{build_command}}        the exact nvcc command for the arch (compile/nvcc_flags.cpp)
//   {{target_instructions}}  the arch's target PTX and the SASS groups that must execute
//                            (problem.toml [targets.<arch>], the arch table's note)
//   {{benchmark_shapes}}     the timed shapes as a table (problem.toml [shapes] benchmark)
// An unknown placeholder is an InputError naming the file.
#pragma once
#include <filesystem>
#include <map>
#include <string>

#include "core/language.h"
#include "problems/problem_spec.h"

namespace ptxbench {

// For Language::triton: agent/triton_prompt.h.
std::string render_problem_prompt(const ProblemSpec& problem, const std::string& arch,
                                  Language language = Language::cuda);
std::string render_triton_problem_prompt(const ProblemSpec& problem, const std::string& arch);  // triton_prompt.cpp

// The template machinery: `text` (read from `file`, named in errors) with the placeholders above
// and `more` filled in.
std::string read_prompt_file(const std::filesystem::path& file);
std::string render_prompt_template(const std::string& text, const std::filesystem::path& file,
                                   const ProblemSpec& problem, const std::string& arch,
                                   const std::map<std::string, std::string>& more);

// The pieces, for tests and for other texts that quote them.
std::string target_instructions_text(const ProblemSpec& problem, const std::string& arch);
std::string benchmark_shapes_table(const ProblemSpec& problem);

}  // namespace ptxbench
