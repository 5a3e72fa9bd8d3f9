// Loads and checks a Fixit recipe (recipes/<name>.toml), every error naming the file and the key.
#include "fixit/recipe.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "core/content_hash.h"
#include "core/error.h"
#include "problems/toml_file.h"

namespace ptxbench::fixit {
namespace fs = std::filesystem;
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Typed reads of one table, each error "FILE: 'key.path': what".
class Reader {
 public:
  Reader(const fs::path& file, const toml::table& t, std::string prefix)
      : file_(file), t_(t), prefix_(std::move(prefix)) {}

  InputError error(const std::string& key, const std::string& what) const {
    return InputError(file_.string() + ": '" + prefix_ + key + "': " + what);
  }
  void only(const std::vector<std::string>& known) const {
    for (const auto& [k, v] : t_)
      if (std::find(known.begin(), known.end(), std::string(k.str())) == known.end())
        throw error(std::string(k.str()), "unknown key (known: " + joined(known) + ")");
  }
  std::optional<std::string> str(const std::string& key) const {
    const auto* n = t_.get(key);
    if (!n) return std::nullopt;
    auto v = n->value_exact<std::string>();
    if (!v) throw error(key, "must be a string");
    return *v;
  }
  std::optional<long long> integer(const std::string& key, long long min, long long max) const {
    const auto* n = t_.get(key);
    if (!n) return std::nullopt;
    auto v = n->value_exact<int64_t>();
    if (!v) throw error(key, "must be an integer");
    if (*v < min || *v > max) throw error(key, "must be in " + std::to_string(min) + ".." + std::to_string(max));
    return *v;
  }
  std::optional<double> number(const std::string& key, double min, double max) const {
    const auto* n = t_.get(key);
    if (!n) return std::nullopt;
    std::optional<double> v = n->value<double>();
    if (!v || !(n->is_floating_point() || n->is_integer())) throw error(key, "must be a number");
    if (*v < min || *v > max) throw error(key, "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return *v;
  }
  std::optional<bool> boolean(const std::string& key) const {
    const auto* n = t_.get(key);
    if (!n) return std::nullopt;
    auto v = n->value_exact<bool>();
    if (!v) throw error(key, "must be true or false");
    return *v;
  }
  const toml::table* table(const std::string& key) const {
    const auto* n = t_.get(key);
    if (!n) return nullptr;
    if (!n->is_table()) throw error(key, "must be a table");
    return n->as_table();
  }
  std::optional<std::vector<std::string>> strings(const std::string& key) const {
    const auto* n = t_.get(key);
    if (!n) return std::nullopt;
    const auto* arr = n->as_array();
    if (!arr) throw error(key, "must be an array of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < arr->size(); ++i) {
      auto v = (*arr)[i].value_exact<std::string>();
      if (!v) throw error(key + "[" + std::to_string(i) + "]", "must be a string");
      out.push_back(*v);
    }
    return out;
  }

 private:
  const fs::path& file_;
  const toml::table& t_;
  std::string prefix_;
};

json toml_to_json(const toml::node& n) {
  if (const auto* t = n.as_table()) {
    json j = json::object();
    for (const auto& [k, v] : *t) j[std::string(k.str())] = toml_to_json(v);
    return j;
  }
  if (const auto* a = n.as_array()) {
    json j = json::array();
    for (const auto& v : *a) j.push_back(toml_to_json(v));
    return j;
  }
  if (auto v = n.value_exact<std::string>()) return *v;
  if (auto v = n.value_exact<int64_t>()) return *v;
  if (auto v = n.value_exact<double>()) return *v;
  if (auto v = n.value_exact<bool>()) return *v;
  return nullptr;
}

}  // namespace

std::string_view to_string(Template t) { return t == Template::fixit ? "fixit" : "kernelgen"; }
std::string_view to_string(Balance b) {
  switch (b) {
    case Balance::none: return "none";
    case Balance::pre: return "pre";
    case Balance::post: return "post";
  }
  return "none";
}

const std::vector<std::string>& error_class_names() {
  static const std::vector<std::string> names = {"compile_error",   "forbidden", "runtime_error",
                                                 "sanitizer_error", "incorrect", "correct_no_target",
                                                 "correct_slow"};
  return names;
}

json Recipe::to_json() const {
  json caps_json = json::object();
  for (const auto& [k, v] : caps) caps_json[k] = v;
  return {{"name", name},
          {"title", title},
          {"file", file.string()},
          {"sha256", sha256},
          {"template", std::string(to_string(template_kind))},
          {"suite", suite},
          {"teacher", teacher},
          {"teacher_args", teacher_args},
          {"classes", classes},
          {"per_trajectory", per_trajectory},
          {"balance",
           {{"mode", std::string(to_string(balance))}, {"per_problem", per_problem}, {"per_signature", per_signature}}},
          {"caps", caps_json},
          {"fix",
           {{"attempts", fix.attempts},
            {"require_target", fix.require_target},
            {"require_explanation", fix.require_explanation},
            {"prefer_trajectory", fix.prefer_trajectory},
            {"slow_below", fix.slow_below},
            {"min_speedup_gain", fix.min_speedup_gain},
            {"min_explanation_chars", fix.min_explanation_chars}}},
          {"seed", seed}};
}

Recipe load_recipe(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw InputError(file.string() + ": no such recipe file");
  Recipe r;
  r.file = file;
  {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    r.text = ss.str();
  }
  r.sha256 = content_sha256(r.text);
  const toml::table root = parse_toml_file(file);
  const Reader top(file, root, "");
  top.only({"name", "title", "template", "suite", "teacher", "teacher_args", "classes", "per_trajectory", "balance",
            "caps", "fix", "seed"});
  auto required = [&](const char* key) {
    auto v = top.str(key);
    if (!v || v->empty()) throw top.error(key, "missing (a non-empty string is required)");
    return *v;
  };
  r.name = required("name");
  if (r.name != file.stem().string())
    throw top.error("name", "is '" + r.name + "' but the file is '" + file.filename().string() + "'");
  r.title = required("title");
  const std::string tmpl = top.str("template").value_or("fixit");
  if (tmpl == "fixit") r.template_kind = Template::fixit;
  else if (tmpl == "kernelgen") r.template_kind = Template::kernelgen;
  else throw top.error("template", "'" + tmpl + "' is not a template (known: fixit, kernelgen)");
  r.suite = required("suite");
  r.teacher = top.str("teacher").value_or("");
  if (!r.teacher.empty() && r.teacher.find(':') == std::string::npos)
    throw top.error("teacher", "'" + r.teacher + "' is not PROVIDER:MODEL");
  if (const auto* t = top.table("teacher_args")) r.teacher_args = toml_to_json(*t);

  const auto& known = error_class_names();
  if (auto classes = top.strings("classes")) {
    if (r.template_kind == Template::kernelgen)
      throw top.error("classes", "a kernelgen recipe takes correct turns, not error classes");
    std::set<std::string> seen;
    for (size_t i = 0; i < classes->size(); ++i) {
      const auto& c = (*classes)[i];
      if (std::find(known.begin(), known.end(), c) == known.end())
        throw top.error("classes[" + std::to_string(i) + "]",
                        "'" + c + "' is not an error class (known: " + joined(known) + ")");
      if (!seen.insert(c).second) throw top.error("classes[" + std::to_string(i) + "]", "'" + c + "' is listed twice");
    }
    if (classes->empty()) throw top.error("classes", "must name at least one class");
    r.classes = *classes;
  } else if (r.template_kind == Template::fixit) {
    r.classes.assign(known.begin(), known.end() - 1);  // every class but correct_slow
  }
  r.per_trajectory = static_cast<int>(top.integer("per_trajectory", 0, 1000).value_or(0));

  if (const auto* b = top.table("balance")) {
    const Reader br(file, *b, "balance.");
    br.only({"mode", "per_problem", "per_signature"});
    const std::string mode = br.str("mode").value_or("none");
    if (mode == "none") r.balance = Balance::none;
    else if (mode == "pre") r.balance = Balance::pre;
    else if (mode == "post") r.balance = Balance::post;
    else throw br.error("mode", "'" + mode + "' is not a balance mode (known: none, pre, post)");
    r.per_problem = static_cast<int>(br.integer("per_problem", 0, 1000000).value_or(0));
    r.per_signature = static_cast<int>(br.integer("per_signature", 0, 1000000).value_or(0));
    if (r.balance != Balance::none && r.per_problem == 0 && r.per_signature == 0)
      throw br.error("mode", "'" + mode + "' balancing needs per_problem or per_signature");
    if (r.balance == Balance::none && (r.per_problem || r.per_signature))
      throw br.error("mode", "per_problem / per_signature need mode \"pre\" or \"post\"");
  }
  if (const auto* c = top.table("caps")) {
    for (const auto& [k, v] : *c) {
      const std::string key(k.str());
      if (std::find(known.begin(), known.end(), key) == known.end())
        throw top.error("caps." + key, "not an error class (known: " + joined(known) + ")");
      auto n = v.value_exact<int64_t>();
      if (!n || *n < 0) throw top.error("caps." + key, "must be a non-negative integer");
      r.caps[key] = static_cast<int>(*n);
    }
  }
  if (const auto* f = top.table("fix")) {
    const Reader fr(file, *f, "fix.");
    fr.only({"attempts", "require_target", "require_explanation", "prefer_trajectory", "slow_below", "min_speedup_gain",
             "min_explanation_chars"});
    r.fix.attempts = static_cast<int>(fr.integer("attempts", 1, 20).value_or(r.fix.attempts));
    r.fix.require_target = fr.boolean("require_target").value_or(r.fix.require_target);
    r.fix.require_explanation = fr.boolean("require_explanation").value_or(r.fix.require_explanation);
    r.fix.prefer_trajectory = fr.boolean("prefer_trajectory").value_or(r.fix.prefer_trajectory);
    r.fix.slow_below = fr.number("slow_below", 0, 1000).value_or(r.fix.slow_below);
    r.fix.min_speedup_gain = fr.number("min_speedup_gain", 0, 100).value_or(r.fix.min_speedup_gain);
    r.fix.min_explanation_chars = static_cast<size_t>(fr.integer("min_explanation_chars", 0, 100000).value_or(80));
  }
  r.seed = static_cast<unsigned long long>(top.integer("seed", 0, (1LL << 53)).value_or(1));
  return r;
}

RecipeRegistry::RecipeRegistry(fs::path root) : root_(std::move(root)) {}

std::vector<std::string> RecipeRegistry::names() const {
  std::vector<std::string> out;
  if (!fs::is_directory(root_)) return out;
  for (const auto& e : fs::directory_iterator(root_))
    if (e.is_regular_file() && e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Recipe RecipeRegistry::load(const std::string& name_or_path) const {
  if (name_or_path.ends_with(".toml") || name_or_path.find('/') != std::string::npos) return load_recipe(name_or_path);
  if (name_or_path.empty() || !fs::is_regular_file(root_ / (name_or_path + ".toml")))
    throw InputError("unknown recipe '" + name_or_path + "' (known: " + joined(names()) + "; in " + root_.string() +
                     "; or give a path to a .toml file)");
  return load_recipe(root_ / (name_or_path + ".toml"));
}

fs::path RecipeRegistry::default_root(const fs::path& problems_root) {
  if (const char* env = std::getenv("PTXBENCH_RECIPES"); env && *env) return env;
  fs::path root = fs::absolute(problems_root).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();
  return root.parent_path() / "recipes";
}

}  // namespace ptxbench::fixit
