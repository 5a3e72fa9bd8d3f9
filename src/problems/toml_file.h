// Reading the TOML files people write (problem.toml, suites, run configs): every error an
// InputError "FILE:LINE:COL: what", never a crash.
#pragma once
#include <toml++/toml.h>

#include <filesystem>

namespace ptxbench {

// The file parsed. Only ASCII is accepted: Debian's toml++ (3.3) reaches code it marks unreachable
// (undefined behaviour in a release build) when it asks whether some non-ASCII characters are
// whitespace, e.g. a bare key followed by U+0300 (found by tests/fuzz/fuzz_problem_toml).
toml::table parse_toml_file(const std::filesystem::path& file);

}  // namespace ptxbench
