// Loads and checks suites/<name>.toml: the problems a run evaluates and their splits.
#include "problems/suite_spec.h"

#include <toml++/toml.h>

#include "problems/toml_file.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "core/error.h"

namespace ptxbench {
namespace fs = std::filesystem;

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::vector<std::string> SuiteSpec::evaluated() const {
  std::vector<std::string> out = problems;
  out.insert(out.end(), held_out.begin(), held_out.end());
  return out;
}

std::map<std::string, std::string> SuiteSpec::splits() const {
  std::map<std::string, std::string> out;
  for (const auto& p : problems) out[p] = kTrainSplit;
  for (const auto& p : held_out) out[p] = kHeldOutSplit;
  return out;
}

json SuiteSpec::to_json() const {
  return {{"name", name}, {"title", title}, {"problems", problems}, {"held_out", held_out}, {"splits", splits()}};
}

SuiteSpec load_suite(const fs::path& file, const ProblemRegistry& registry) {
  if (!fs::is_regular_file(file)) throw InputError(file.string() + ": no such suite file");
  const toml::table root = parse_toml_file(file);
  auto error = [&](const std::string& path, const std::string& what) -> InputError {
    return InputError(file.string() + ": '" + path + "': " + what);
  };
  static const std::vector<std::string> kKeys{"name", "title", "problems", "held_out"};
  for (const auto& [k, v] : root)
    if (std::find(kKeys.begin(), kKeys.end(), std::string(k.str())) == kKeys.end())
      throw error(std::string(k.str()), "unknown key (known: " + joined(kKeys) + ")");
  auto str = [&](const char* key) {
    const auto* n = root.get(key);
    if (!n) throw error(key, "missing (a string is required)");
    auto v = n->value_exact<std::string>();
    if (!v || v->empty()) throw error(key, "must be a non-empty string");
    return *v;
  };
  const std::vector<std::string> known = registry.names();
  std::map<std::string, std::string> seen;  // problem -> where it was listed
  auto names = [&](const char* key) {
    const auto* n = root.get(key);
    if (!n)
      throw error(key, std::string("missing (an array of problem names is required") +
                           (std::string(key) == "held_out" ? "; [] when nothing is held out)" : ")"));
    const auto* arr = n->as_array();
    if (!arr) throw error(key, "must be an array of problem names");
    std::vector<std::string> out;
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string path = std::string(key) + "[" + std::to_string(i) + "]";
      auto v = (*arr)[i].value_exact<std::string>();
      if (!v) throw error(path, "must be a string (a problem name)");
      if (std::find(known.begin(), known.end(), *v) == known.end())
        throw error(path, "unknown problem '" + *v + "' (known: " + joined(known) + ")");
      if (auto it = seen.find(*v); it != seen.end())
        throw error(path, "'" + *v + "' is already listed as " + it->second);
      seen[*v] = path;
      out.push_back(*v);
    }
    return out;
  };
  SuiteSpec s;
  s.file = file;
  s.name = str("name");
  if (s.name != file.stem().string())
    throw error("name", "is '" + s.name + "' but the file is '" + file.filename().string() + "'");
  s.title = str("title");
  s.problems = names("problems");
  if (s.problems.empty()) throw error("problems", "must name at least one problem");
  s.held_out = names("held_out");
  return s;
}

SuiteRegistry::SuiteRegistry(fs::path root) : root_(std::move(root)) {
  if (!fs::is_directory(root_)) throw InputError("suites folder '" + root_.string() + "' is not a directory");
}

std::vector<std::string> SuiteRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(root_))
    if (e.is_regular_file() && e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

SuiteSpec SuiteRegistry::load(const std::string& name, const ProblemRegistry& problems) const {
  if (name.empty() || name.find('/') != std::string::npos || !fs::is_regular_file(root_ / (name + ".toml")))
    throw InputError("unknown suite '" + name + "' (known: " + joined(names()) + "; in " + root_.string() + ")");
  return load_suite(root_ / (name + ".toml"), problems);
}

fs::path SuiteRegistry::default_root(const fs::path& problems_root) {
  if (const char* env = std::getenv("PTXBENCH_SUITES"); env && *env) return env;
  fs::path root = fs::absolute(problems_root).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // "problems/"
  return root.parent_path() / "suites";
}

}  // namespace ptxbench
