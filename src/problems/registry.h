// Finds problems: every folder under the problems root that holds a problem.toml.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "problems/problem_spec.h"

namespace ptxbench {

class ProblemRegistry {
 public:
  explicit ProblemRegistry(std::filesystem::path root);
  std::vector<std::string> names() const;
  ProblemSpec load(const std::string& name) const;  // InputError lists the known names

  // Every problem folder, each loaded or with its spec error (one bad spec spoils no other).
  struct Loaded {
    std::string name;
    std::optional<ProblemSpec> spec;
    std::string error;  // set when spec is empty: file, line, key path, what is wrong
  };
  std::vector<Loaded> load_all() const;
  const std::filesystem::path& root() const { return root_; }

  // The problems root: $PTXBENCH_PROBLEMS, else ./problems, else the one beside the executable.
  static std::filesystem::path default_root();

 private:
  std::filesystem::path root_;
};

}  // namespace ptxbench
