#include "problems/problem_spec.h"

#include <toml++/toml.h>

#include "core/error.h"
#include "problems/flop_expr.h"

namespace ptxbench {
namespace {

// Reads typed fields out of a toml table and reports the file and the dotted path on error.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void error(const std::string& path, const std::string& what) const {
    throw InputError(file_ + ": '" + path + "': " + what);
  }
  std::string str(const toml::table& t, const std::string& key, const std::string& path,
                  std::optional<std::string> fallback = std::nullopt) const {
    const auto* n = t.get(key);
    if (!n) {
      if (fallback) return *fallback;
      error(path + key, "missing (a string is required)");
    }
    if (auto v = n->value<std::string>()) return *v;
    error(path + key, "must be a string");
  }
  long long integer(const toml::node& n, const std::string& path) const {
    if (auto v = n.value<int64_t>()) return *v;
    error(path, "must be an integer");
  }
  double number(const toml::table& t, const std::string& key, const std::string& path, double fallback) const {
    const auto* n = t.get(key);
    if (!n) return fallback;
    if (auto v = n->value<double>()) return *v;
    error(path + key, "must be a number");
  }
  const toml::table& table(const toml::table& t, const std::string& key, const std::string& path) const {
    const auto* n = t.get(key);
    if (!n) error(path + key, "missing (a table is required)");
    if (const auto* tt = n->as_table()) return *tt;
    error(path + key, "must be a table");
  }
  std::vector<std::string> strings(const toml::node& n, const std::string& path) const {
    const auto* arr = n.as_array();
    if (!arr) error(path, "must be an array of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < arr->size(); ++i) {
      auto v = (*arr)[i].value<std::string>();
      if (!v) error(path + "[" + std::to_string(i) + "]", "must be a string");
      out.push_back(*v);
    }
    return out;
  }
  // A flat table of booleans, integers, numbers and strings, as JSON.
  json scalars(const toml::table& t, const std::string& path) const {
    json out = json::object();
    for (const auto& [k, v] : t) {
      std::string key(k.str());
      if (auto b = v.value_exact<bool>()) out[key] = *b;
      else if (auto i = v.value_exact<int64_t>()) out[key] = *i;
      else if (auto d = v.value_exact<double>()) out[key] = *d;
      else if (auto str = v.value_exact<std::string>()) out[key] = *str;
      else error(path + "." + key, "must be a boolean, integer, number or string");
    }
    return out;
  }
  Shape shape(const toml::node& n, const std::string& path, const std::vector<std::string>& dims) const {
    const auto* t = n.as_table();
    if (!t) error(path, "must be a table of dims, e.g. { M = 128, N = 128, K = 64 }");
    Shape s;
    for (const auto& [k, v] : *t) {
      std::string key(k.str());
      if (std::find(dims.begin(), dims.end(), key) == dims.end())
        error(path + "." + key, "is not one of the problem's dims");
      s[key] = integer(v, path + "." + key);
    }
    for (const auto& d : dims)
      if (!s.count(d)) error(path, "lacks dim '" + d + "'");
    return s;
  }

 private:
  std::string file_;
};

}  // namespace

const ArchTargets* ProblemSpec::targets_for(const std::string& arch) const {
  for (const auto& t : targets)
    if (t.arch == arch) return &t;
  return nullptr;
}

std::string ProblemSpec::check_shape(const Shape& s) const {
  for (const auto& d : dims) {
    auto it = s.find(d);
    if (it == s.end()) return "missing dim " + d;
    auto c = constraints.find(d);
    if (c == constraints.end()) continue;
    long long v = it->second;
    const auto& k = c->second;
    if (v < k.min || v > k.max) return d + "=" + std::to_string(v) + " outside [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
    if (v % k.multiple_of) return d + "=" + std::to_string(v) + " is not a multiple of " + std::to_string(k.multiple_of);
    if (!k.one_of.empty() && std::find(k.one_of.begin(), k.one_of.end(), v) == k.one_of.end())
      return d + "=" + std::to_string(v) + " is not an allowed value";
  }
  return {};
}

double ProblemSpec::flop_count(const Shape& s) const { return eval_flop_expr(flops, s); }

std::string shape_to_string(const Shape& s, const std::vector<std::string>& dims) {
  std::string out;
  for (const auto& d : dims) {
    auto it = s.find(d);
    if (it == s.end()) continue;
    out += (out.empty() ? "" : " ") + d + "=" + std::to_string(it->second);
  }
  return out;
}

json ProblemSpec::to_json() const {
  json j;
  j["name"] = name;
  j["title"] = title;
  j["entry"] = entry;
  j["workload"] = workload;
  if (!workload_options.empty()) j["workload_options"] = workload_options;
  j["baseline"] = baseline;
  j["flops"] = flops;
  j["dims"] = dims;
  j["benchmark_shapes"] = benchmark_shapes;
  j["hidden_shape_count"] = hidden_shapes.size();
  json tol = json::object();
  for (const auto& [k, t] : tolerances) tol[k] = {{"rtol", t.rtol}, {"atol", t.atol}, {"max_rel_l2", t.max_rel_l2}};
  j["tolerances"] = tol;
  return j;
}

ProblemSpec load_problem(const std::filesystem::path& dir) {
  const auto file = dir / "problem.toml";
  if (!std::filesystem::exists(file)) throw InputError(file.string() + ": no such problem spec");
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(file.string() + ":" + std::to_string(e.source().begin.line) + ":" +
                     std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
  }
  Reader rd(file.string());
  ProblemSpec p;
  p.dir = dir;
  p.name = rd.str(root, "name", "");
  if (p.name != dir.filename().string())
    rd.error("name", "is '" + p.name + "' but the folder is '" + dir.filename().string() + "'");
  p.title = rd.str(root, "title", "");
  p.entry = rd.str(root, "entry", "");
  p.workload = rd.str(root, "workload", "", p.name);
  p.baseline = rd.str(root, "baseline", "");
  if (const auto* n = root.get("workload_options")) {
    const auto* t = n->as_table();
    if (!t) rd.error("workload_options", "must be a table, e.g. { causal = true }");
    p.workload_options = rd.scalars(*t, "workload_options");
  }
  p.flops = rd.str(root, "flops", "");
  if (!root.get("dims")) rd.error("dims", "missing (an array of dim names is required)");
  p.dims = rd.strings(*root.get("dims"), "dims");
  if (p.dims.empty()) rd.error("dims", "must name at least one dim");
  Shape probe_vars;
  for (const auto& d : p.dims) probe_vars[d] = 1;
  try {
    eval_flop_expr(p.flops, probe_vars);
  } catch (const InputError& e) {
    rd.error("flops", e.what());
  }

  const auto& cons = rd.table(root, "constraints", "");
  for (const auto& [k, v] : cons) {
    std::string key(k.str());
    if (std::find(p.dims.begin(), p.dims.end(), key) == p.dims.end())
      rd.error("constraints." + key, "is not one of the problem's dims");
    const auto* t = v.as_table();
    if (!t) rd.error("constraints." + key, "must be a table like { multiple_of = 128, min = 128 }");
    DimConstraint c;
    for (const auto& [ck, cv] : *t) {
      std::string name(ck.str());
      std::string path = "constraints." + key + "." + name;
      if (name == "multiple_of") c.multiple_of = rd.integer(cv, path);
      else if (name == "min") c.min = rd.integer(cv, path);
      else if (name == "max") c.max = rd.integer(cv, path);
      else if (name == "one_of") {
        const auto* arr = cv.as_array();
        if (!arr) rd.error(path, "must be an array of integers");
        for (size_t i = 0; i < arr->size(); ++i) c.one_of.push_back(rd.integer((*arr)[i], path));
      } else rd.error(path, "unknown constraint (use multiple_of, min, max, one_of)");
    }
    if (c.multiple_of <= 0) rd.error("constraints." + key + ".multiple_of", "must be positive");
    p.constraints[key] = c;
  }

  const auto& tol = rd.table(root, "tolerance", "");
  for (const auto& [k, v] : tol) {
    const auto* t = v.as_table();
    std::string path = "tolerance." + std::string(k.str()) + ".";
    if (!t) rd.error(path, "must be a table { rtol, atol, max_rel_l2 }");
    Tolerance x;
    x.rtol = rd.number(*t, "rtol", path, x.rtol);
    x.atol = rd.number(*t, "atol", path, x.atol);
    x.max_rel_l2 = rd.number(*t, "max_rel_l2", path, x.max_rel_l2);
    if (x.rtol < 0 || x.atol < 0 || x.max_rel_l2 <= 0) rd.error(path, "tolerances must be non-negative");
    p.tolerances[std::string(k.str())] = x;
  }
  if (p.tolerances.empty()) rd.error("tolerance", "must name at least one output");

  const auto& targets = rd.table(root, "targets", "");
  for (const auto& [arch, v] : targets) {
    std::string path = "targets." + std::string(arch.str());
    const auto* t = v.as_table();
    if (!t) rd.error(path, "must be a table { groups = [[...]], ptx = [...] }");
    ArchTargets at;
    at.arch = std::string(arch.str());
    const auto* groups = t->get("groups");
    if (!groups || !groups->as_array()) rd.error(path + ".groups", "must be an array of arrays of SASS opcode globs");
    for (size_t i = 0; i < groups->as_array()->size(); ++i)
      at.groups.push_back(rd.strings((*groups->as_array())[i], path + ".groups[" + std::to_string(i) + "]"));
    if (const auto* ptx = t->get("ptx")) at.ptx = rd.strings(*ptx, path + ".ptx");
    p.targets.push_back(std::move(at));
  }

  const auto& shapes = rd.table(root, "shapes", "");
  auto shape_list = [&](const char* key, bool required) {
    std::vector<Shape> out;
    const auto* n = shapes.get(key);
    if (!n) {
      if (required) rd.error(std::string("shapes.") + key, "missing (an array of shapes is required)");
      return out;
    }
    const auto* arr = n->as_array();
    if (!arr) rd.error(std::string("shapes.") + key, "must be an array of shapes");
    for (size_t i = 0; i < arr->size(); ++i) {
      std::string path = std::string("shapes.") + key + "[" + std::to_string(i) + "]";
      Shape s = rd.shape((*arr)[i], path, p.dims);
      if (auto why = p.check_shape(s); !why.empty()) rd.error(path, "violates the constraints: " + why);
      out.push_back(std::move(s));
    }
    return out;
  };
  p.benchmark_shapes = shape_list("benchmark", true);
  if (p.benchmark_shapes.empty()) rd.error("shapes.benchmark", "must list at least one shape");
  p.hidden_shapes = shape_list("hidden", false);
  for (const char* key : {"sanitize", "probe"}) {
    const auto* n = shapes.get(key);
    if (!n) rd.error(std::string("shapes.") + key, "missing (one shape is required)");
    Shape s = rd.shape(*n, std::string("shapes.") + key, p.dims);
    if (auto why = p.check_shape(s); !why.empty()) rd.error(std::string("shapes.") + key, "violates the constraints: " + why);
    (std::string(key) == "sanitize" ? p.sanitize_shape : p.probe_shape) = s;
  }
  if (const auto* r = shapes.get("random")) {
    const auto* t = r->as_table();
    if (!t) rd.error("shapes.random", "must be a table { count, max = { ... } }");
    if (const auto* c = t->get("count")) p.random_hidden_shapes = static_cast<int>(rd.integer(*c, "shapes.random.count"));
    if (const auto* m = t->get("max")) p.random_shape_max = rd.shape(*m, "shapes.random.max", p.dims);
    else if (p.random_hidden_shapes > 0) rd.error("shapes.random.max", "missing (bounds for drawn shapes)");
  }
  if (const auto* c = root.get("correctness")) {
    const auto* t = c->as_table();
    if (!t) rd.error("correctness", "must be a table");
    if (const auto* s = t->get("seeds")) p.correctness_seeds = static_cast<int>(rd.integer(*s, "correctness.seeds"));
    if (p.correctness_seeds < 1) rd.error("correctness.seeds", "must be at least 1");
  }
  return p;
}

}  // namespace ptxbench
