// Finds problems: every folder under the problems root that holds a problem.toml.
#include "problems/registry.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.h"

namespace ptxbench {
namespace fs = std::filesystem;

ProblemRegistry::ProblemRegistry(fs::path root) : root_(std::move(root)) {
  if (!fs::is_directory(root_)) throw InputError("problems root '" + root_.string() + "' is not a directory");
}

std::vector<std::string> ProblemRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(root_))
    if (e.is_directory() && fs::exists(e.path() / "problem.toml")) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

ProblemSpec ProblemRegistry::load(const std::string& name) const {
  if (name.empty() || name.find('/') != std::string::npos || !fs::exists(root_ / name / "problem.toml")) {
    std::string known;
    for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown problem '" + name + "' (known: " + known + ")");
  }
  return load_problem(root_ / name);
}

std::vector<ProblemRegistry::Loaded> ProblemRegistry::load_all() const {
  std::vector<Loaded> out;
  for (const auto& n : names()) {
    Loaded l{n, std::nullopt, ""};
    try {
      l.spec = load_problem(root_ / n);
    } catch (const InputError& e) {
      l.error = e.what();
    }
    out.push_back(std::move(l));
  }
  return out;
}

fs::path ProblemRegistry::default_root() {
  if (const char* env = std::getenv("PTXBENCH_PROBLEMS")) return env;
  if (fs::is_directory("problems")) return fs::absolute("problems");
  // <prefix>/build/src/cli/ptxbench -> <prefix>/problems
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path p = exe.parent_path(); !ec && !p.empty() && p != p.root_path(); p = p.parent_path())
    if (fs::is_directory(p / "problems")) return p / "problems";
  return fs::absolute("problems");
}

}  // namespace ptxbench
