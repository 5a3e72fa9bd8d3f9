// A suite is data: suites/<name>.toml names the problems a run evaluates and their split, the way
// the paper's training recipes name "4ops" and "8ops" and hold GEMM out:
//   name = "4ops"                        (must be the file's name)
//   title = "..."
//   problems = ["mha_fwd", ...]          evaluated and trained on: split "train"
//   held_out = ["gemm"]                  evaluated, never trained on: split "held-out" (may be empty)
// Every key is required and no other is accepted; every name must be a problem of the registry and
// appear once. Errors name the file and the key path.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/json.h"
#include "problems/registry.h"

namespace ptxbench {

inline constexpr const char* kTrainSplit = "train";
inline constexpr const char* kHeldOutSplit = "held-out";

struct SuiteSpec {
  std::filesystem::path file;
  std::string name, title;
  std::vector<std::string> problems;  // split "train"
  std::vector<std::string> held_out;  // split "held-out"

  std::vector<std::string> evaluated() const;         // problems, then held_out
  std::map<std::string, std::string> splits() const;  // problem -> split
  json to_json() const;
};

// Loads and validates one suite file; throws InputError naming the file and key path.
SuiteSpec load_suite(const std::filesystem::path& file, const ProblemRegistry& problems);

// Finds suites: every <name>.toml in the suites folder.
class SuiteRegistry {
 public:
  explicit SuiteRegistry(std::filesystem::path root);
  std::vector<std::string> names() const;
  // InputError listing the known suites when `name` is not one.
  SuiteSpec load(const std::string& name, const ProblemRegistry& problems) const;
  const std::filesystem::path& root() const { return root_; }

  // The suites folder: $PTXBENCH_SUITES, else the one beside the problems root (<root>/../suites).
  static std::filesystem::path default_root(const std::filesystem::path& problems_root);

 private:
  std::filesystem::path root_;
};

}  // namespace ptxbench
