// Options may come before or after the subcommand: `ptxbench --json eval a.cu` is read as
// `ptxbench eval --json a.cu`. Global options (--workspace, --problems, -v, --version, --help)
// stay where they are; everything else before the subcommand moves right after it.
#pragma once
#include <set>
#include <string>
#include <vector>

namespace ptxbench::cli {

struct GlobalOptionNames {
  std::set<std::string> with_value;  // e.g. --workspace (its value follows as the next word, or after '=')
  std::set<std::string> flags;       // e.g. -v, --verbose, --version, -h, --help
};

// args without the program name; returns them reordered (unchanged when no subcommand is found).
std::vector<std::string> options_after_subcommand(const std::vector<std::string>& args,
                                                  const std::set<std::string>& subcommands,
                                                  const GlobalOptionNames& globals);

}  // namespace ptxbench::cli
