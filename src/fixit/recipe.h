// A Fixit recipe is data: recipes/<name>.toml says which runs' failures become training records and
// how (the paper's s0-s6 ship as files; adding a recipe is adding a file). Keys, all checked, every
// error naming the file and the key:
//   name = "s1"                       must be the file's name
//   title = "..."
//   template = "fixit" | "kernelgen"  fixit: failing turn -> explanation + fixed kernel;
//                                     kernelgen: problem prompt -> a correct kernel (and its explanation)
//   suite = "4ops"                    the problems and their splits; records from held-out problems are refused
//   teacher = "openrouter:z-ai/glm-5.2"   default teacher (--teacher overrides; "" = none)
//   [teacher_args]                    the teacher client's options (base_url, api_key_env, max_tokens, ...)
//   classes = [...]                   the error classes taken (fixit; default every class but correct_slow)
//   per_trajectory = 0                at most this many failing turns per trajectory, earliest first (0: all)
//   [balance] mode = "none"|"pre"|"post", per_problem = N, per_signature = N
//   [caps] <class> = N                at most N records of that class
//   [fix] attempts, require_target, require_explanation, prefer_trajectory, slow_below, min_speedup_gain
//   seed = 1                          the balancing draws
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench::fixit {

enum class Template { fixit, kernelgen };
enum class Balance { none, pre, post };
std::string_view to_string(Template t);
std::string_view to_string(Balance b);

struct FixRules {
  int attempts = 3;                   // teacher attempts per item before it is dropped
  bool require_target = true;         // a fix must execute every target group (target_executed true)
  bool require_explanation = true;    // a record needs an explanation (the fixing reply's prose or the teacher's)
  bool prefer_trajectory = true;      // a later turn of the same trajectory that fixed it comes before the teacher
  double slow_below = 0.5;            // a target-correct turn slower than this speedup is correct_slow (0: never)
  double min_speedup_gain = 0.10;     // a fix of correct_slow must be this much faster than the slow kernel
  size_t min_explanation_chars = 80;  // shorter prose is no explanation
};

struct Recipe {
  std::filesystem::path file;
  std::string name, title;
  std::string text;    // the file's bytes (stored with every build)
  std::string sha256;  // of text
  Template template_kind = Template::fixit;
  std::string suite;
  std::string teacher;  // PROVIDER:MODEL, or "" for none
  json teacher_args = json::object();
  std::vector<std::string> classes;  // fixit error classes taken
  int per_trajectory = 0;
  Balance balance = Balance::none;
  int per_problem = 0, per_signature = 0;  // 0: no cap
  std::map<std::string, int> caps;         // class -> at most
  FixRules fix;
  unsigned long long seed = 1;

  json to_json() const;
};

// Every class a failing turn can have (error_class.h), in display order.
const std::vector<std::string>& error_class_names();

// Loads and validates one recipe file; throws InputError naming the file and key path.
Recipe load_recipe(const std::filesystem::path& file);

// Recipes by name: every <name>.toml in the recipes folder ($PTXBENCH_RECIPES, else beside problems/).
class RecipeRegistry {
 public:
  explicit RecipeRegistry(std::filesystem::path root);
  std::vector<std::string> names() const;
  // A name in the folder, or a path to a .toml file; InputError listing the known names otherwise.
  Recipe load(const std::string& name_or_path) const;
  static std::filesystem::path default_root(const std::filesystem::path& problems_root);

 private:
  std::filesystem::path root_;
};

}  // namespace ptxbench::fixit
