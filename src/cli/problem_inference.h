// Which problem a candidate is for, when `eval` is not told (-p): the problem whose folder holds
// the file (a reference), else the one whose entry point the source defines. Two problems that
// share an entry point (mha_fwd and mha_fwd_causal) cannot be told apart: the error says to pass -p
// and names them.
#pragma once
#include <filesystem>
#include <string>

#include "problems/registry.h"

namespace ptxbench::cli {

// The problem's name; throws InputError with the hint when it cannot be inferred.
std::string infer_problem(const std::filesystem::path& file, const std::string& source,
                          const ProblemRegistry& registry);

}  // namespace ptxbench::cli
