// Infers the problem a candidate file is for when `eval` gets no -p: its folder, else its entry point.
#include "cli/problem_inference.h"

#include <map>
#include <regex>
#include <set>

#include "compile/strip_comments.h"
#include "core/error.h"

namespace ptxbench::cli {
namespace fs = std::filesystem;

std::string infer_problem(const fs::path& file, const std::string& source, const ProblemRegistry& registry) {
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(fs::absolute(file), ec);
  const fs::path root = fs::weakly_canonical(fs::absolute(registry.root()), ec);
  const fs::path rel = abs.lexically_relative(root);
  const std::vector<std::string> names = registry.names();
  if (!rel.empty() && *rel.begin() != ".." &&
      std::find(names.begin(), names.end(), rel.begin()->string()) != names.end())
    return rel.begin()->string();

  std::map<std::string, std::set<std::string>> by_entry;  // entry point -> problems
  for (const auto& l : registry.load_all())
    if (l.spec) by_entry[l.spec->entry].insert(l.name);
  const std::string code = strip_comments(source, StringLiterals::blank);
  std::vector<std::string> defined;
  for (const auto& [entry, problems] : by_entry)
    if (std::regex_search(code, std::regex("\\b" + entry + "\\s*\\("))) defined.push_back(entry);
  auto list = [](const auto& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (defined.size() == 1 && by_entry[defined[0]].size() == 1) return *by_entry[defined[0]].begin();
  if (defined.size() == 1)
    throw InputError(file.string() + " defines " + defined[0] + ", the entry point of " + list(by_entry[defined[0]]) +
                     ": pass -p NAME to say which problem it is for");
  if (defined.size() > 1)
    throw InputError(file.string() + " defines several problems' entry points (" + list(defined) + "): pass -p NAME");
  std::vector<std::string> entries;
  for (const auto& [entry, problems] : by_entry) entries.push_back(entry);
  throw InputError(file.string() + " defines none of the problems' entry points (" + list(entries) +
                   "): pass -p NAME (see 'ptxbench problems')");
}

}  // namespace ptxbench::cli
