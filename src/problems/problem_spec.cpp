// Loads and validates problems/<name>/problem.toml into a ProblemSpec; shapes, FLOPs and bytes from it.
#include "problems/problem_spec.h"

#include <toml++/toml.h>

#include "problems/toml_file.h"

#include <cmath>

#include "core/arch.h"
#include "core/error.h"
#include "problems/flop_expr.h"
#include "problems/known_names.h"

namespace ptxbench {
namespace {

// Reads typed fields out of a toml table and reports the file and the dotted path on error.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  // "problems/x/problem.toml:12: 'shapes.random.count': must be ..." (the line when known).
  [[noreturn]] void error(const std::string& path, const std::string& what, const toml::node* at = nullptr) const {
    const std::string line = at && at->source().begin.line ? ":" + std::to_string(at->source().begin.line) : "";
    throw InputError(file_ + line + ": '" + path + "': " + what);
  }
  // Every key of `t` must be one of `known`.
  void keys(const toml::table& t, const std::string& prefix, std::initializer_list<std::string_view> known) const {
    for (const auto& [k, v] : t) {
      if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
      std::string list;
      for (auto n : known) list += (list.empty() ? "" : ", ") + std::string(n);
      error(prefix + std::string(k.str()), "unknown key (known here: " + list + ")", &v);
    }
  }
  // An integer in [lo, hi].
  long long bounded(const toml::node& n, const std::string& path, long long lo, long long hi) const {
    const long long v = integer(n, path);
    if (v < lo || v > hi)
      error(path, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + std::to_string(v),
            &n);
    return v;
  }
  std::string str(const toml::table& t, const std::string& key, const std::string& path,
                  std::optional<std::string> fallback = std::nullopt) const {
    const auto* n = t.get(key);
    if (!n) {
      if (fallback) return *fallback;
      error(path + key, "missing (a string is required)");
    }
    if (auto v = n->value<std::string>()) return *v;
    error(path + key, "must be a string", n);
  }
  long long integer(const toml::node& n, const std::string& path) const {
    if (auto v = n.value_exact<int64_t>()) return *v;
    error(path, "must be an integer", &n);
  }
  double number(const toml::table& t, const std::string& key, const std::string& path, double fallback) const {
    const auto* n = t.get(key);
    if (!n) return fallback;
    if (auto v = n->value<double>(); v && std::isfinite(*v)) return *v;
    error(path + key, "must be a finite number", n);
  }
  const toml::table& table(const toml::table& t, const std::string& key, const std::string& path) const {
    const auto* n = t.get(key);
    if (!n) error(path + key, "missing (a table is required)");
    if (const auto* tt = n->as_table()) return *tt;
    error(path + key, "must be a table", n);
  }
  std::vector<std::string> strings(const toml::node& n, const std::string& path) const {
    const auto* arr = n.as_array();
    if (!arr) error(path, "must be an array of strings", &n);
    std::vector<std::string> out;
    for (size_t i = 0; i < arr->size(); ++i) {
      auto v = (*arr)[i].value<std::string>();
      if (!v) error(path + "[" + std::to_string(i) + "]", "must be a string", &(*arr)[i]);
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
      else error(path + "." + key, "must be a boolean, integer, number or string", &v);
    }
    return out;
  }
  Shape shape(const toml::node& n, const std::string& path, const std::vector<std::string>& dims) const {
    const auto* t = n.as_table();
    if (!t) error(path, "must be a table of dims, e.g. { M = 128, N = 128, K = 64 }", &n);
    Shape s;
    for (const auto& [k, v] : *t) {
      std::string key(k.str());
      if (std::find(dims.begin(), dims.end(), key) == dims.end())
        error(path + "." + key, "is not one of the problem's dims", &v);
      s[key] = integer(v, path + "." + key);
    }
    for (const auto& d : dims)
      if (!s.count(d)) error(path, "lacks dim '" + d + "'", &n);
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
    static const DimConstraint kDefault{};
    const auto& k = c == constraints.end() ? kDefault : c->second;
    long long v = it->second;
    if (v < k.min || v > k.max)
      return d + "=" + std::to_string(v) + " outside [" + std::to_string(k.min) + ", " + std::to_string(k.max) + "]";
    if (v % k.multiple_of)
      return d + "=" + std::to_string(v) + " is not a multiple of " + std::to_string(k.multiple_of);
    if (!k.one_of.empty() && std::find(k.one_of.begin(), k.one_of.end(), v) == k.one_of.end())
      return d + "=" + std::to_string(v) + " is not an allowed value";
  }
  return {};
}

double ProblemSpec::flop_count(const Shape& s) const { return eval_flop_expr(flops, s); }

double ProblemSpec::operand_byte_count(const Shape& s) const {
  return operand_bytes.empty() ? 0 : eval_flop_expr(operand_bytes, s);
}

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
  if (!operand_bytes.empty()) j["operand_bytes"] = operand_bytes;
  j["dims"] = dims;
  j["benchmark_shapes"] = benchmark_shapes;
  j["hidden_shape_count"] = hidden_shapes.size();
  json tol = json::object();
  for (const auto& [k, t] : tolerances) tol[k] = {{"rtol", t.rtol}, {"atol", t.atol}, {"max_rel_l2", t.max_rel_l2}};
  j["tolerances"] = tol;
  return j;
}

ProblemSpec load_problem(const std::filesystem::path& dir) { return load_problem(dir, known_workloads()); }

ProblemSpec load_problem(const std::filesystem::path& dir, const WorkloadNames& workloads) {
  const auto file = dir / "problem.toml";
  if (!std::filesystem::exists(file)) throw InputError(file.string() + ": no such problem spec");
  const toml::table root = parse_toml_file(file);
  Reader rd(file.string());
  rd.keys(root, "",
          {"name", "title", "entry", "workload", "baseline", "dims", "flops", "operand_bytes", "workload_options",
           "constraints", "tolerance", "targets", "shapes", "correctness"});
  ProblemSpec p;
  p.dir = dir;
  p.name = rd.str(root, "name", "");
  if (p.name != dir.filename().string())
    rd.error("name", "is '" + p.name + "' but the folder is '" + dir.filename().string() + "'", root.get("name"));
  p.title = rd.str(root, "title", "");
  p.entry = rd.str(root, "entry", "");
  p.workload = rd.str(root, "workload", "", p.name);
  p.baseline = rd.str(root, "baseline", "");
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("none") : s;
  };
  if (const auto w = workloads.find(p.workload); w == workloads.end()) {
    std::vector<std::string> names;
    for (const auto& [k, v] : workloads) names.push_back(k);
    rd.error("workload", "'" + p.workload + "' is not a workload of the worker (known: " + list(names) + ")",
             root.get("workload") ? root.get("workload") : root.get("name"));
  } else if (std::find(w->second.begin(), w->second.end(), p.baseline) == w->second.end()) {
    rd.error("baseline",
             "'" + p.baseline + "' is not a baseline the workload '" + p.workload +
                 "' implements (known: " + list(w->second) + ")",
             root.get("baseline"));
  }
  if (const auto* n = root.get("workload_options")) {
    const auto* t = n->as_table();
    if (!t) rd.error("workload_options", "must be a table, e.g. { causal = true }", n);
    p.workload_options = rd.scalars(*t, "workload_options");
  }
  p.flops = rd.str(root, "flops", "");
  if (!root.get("dims")) rd.error("dims", "missing (an array of dim names is required)");
  p.dims = rd.strings(*root.get("dims"), "dims");
  if (p.dims.empty()) rd.error("dims", "must name at least one dim", root.get("dims"));
  for (size_t i = 0; i < p.dims.size(); ++i)
    if (std::count(p.dims.begin(), p.dims.end(), p.dims[i]) > 1)
      rd.error("dims", "names '" + p.dims[i] + "' twice", root.get("dims"));
  Shape probe_vars;
  for (const auto& d : p.dims) probe_vars[d] = 1;
  try {
    eval_flop_expr(p.flops, probe_vars);
  } catch (const InputError& e) {
    rd.error("flops", e.what(), root.get("flops"));
  }
  p.operand_bytes = rd.str(root, "operand_bytes", "", std::string());
  if (!p.operand_bytes.empty()) try {
      eval_flop_expr(p.operand_bytes, probe_vars);
    } catch (const InputError& e) {
      rd.error("operand_bytes", e.what(), root.get("operand_bytes"));
    }

  // Every dim is bounded: [constraints.<dim>] narrows [1, kMaxDim], never widens it.
  const auto& cons = rd.table(root, "constraints", "");
  for (const auto& [k, v] : cons) {
    std::string key(k.str());
    if (std::find(p.dims.begin(), p.dims.end(), key) == p.dims.end())
      rd.error("constraints." + key, "is not one of the problem's dims", &v);
    const auto* t = v.as_table();
    if (!t) rd.error("constraints." + key, "must be a table like { multiple_of = 128, min = 128 }", &v);
    DimConstraint c;
    for (const auto& [ck, cv] : *t) {
      std::string name(ck.str());
      std::string path = "constraints." + key + "." + name;
      if (name == "multiple_of") c.multiple_of = rd.bounded(cv, path, 1, kMaxDim);
      else if (name == "min") c.min = rd.bounded(cv, path, 1, kMaxDim);
      else if (name == "max") c.max = rd.bounded(cv, path, 1, kMaxDim);
      else if (name == "one_of") {
        const auto* arr = cv.as_array();
        if (!arr || arr->empty()) rd.error(path, "must be a non-empty array of integers", &cv);
        for (size_t i = 0; i < arr->size(); ++i)
          c.one_of.push_back(rd.bounded((*arr)[i], path + "[" + std::to_string(i) + "]", 1, kMaxDim));
      } else rd.error(path, "unknown constraint (use multiple_of, min, max, one_of)", &cv);
    }
    const std::string path = "constraints." + key;
    if (c.min > c.max) rd.error(path, "min " + std::to_string(c.min) + " is above max " + std::to_string(c.max), &v);
    if ((c.max / c.multiple_of) * c.multiple_of < c.min)
      rd.error(path, "no multiple of " + std::to_string(c.multiple_of) + " lies in [min, max]", &v);
    for (long long x : c.one_of)
      if (x < c.min || x > c.max || x % c.multiple_of)
        rd.error(path + ".one_of", std::to_string(x) + " breaks the dim's other constraints", &v);
    p.constraints[key] = c;
  }

  const auto& tol = rd.table(root, "tolerance", "");
  for (const auto& [k, v] : tol) {
    const auto* t = v.as_table();
    std::string path = "tolerance." + std::string(k.str()) + ".";
    if (!t) rd.error(path, "must be a table { rtol, atol, max_rel_l2 }", &v);
    rd.keys(*t, path, {"rtol", "atol", "max_rel_l2"});
    Tolerance x;
    x.rtol = rd.number(*t, "rtol", path, x.rtol);
    x.atol = rd.number(*t, "atol", path, x.atol);
    x.max_rel_l2 = rd.number(*t, "max_rel_l2", path, x.max_rel_l2);
    if (x.rtol < 0 || x.atol < 0 || x.max_rel_l2 <= 0 || x.rtol > 1 || x.atol > 1 || x.max_rel_l2 > 1)
      rd.error(path, "tolerances must lie in [0, 1] (max_rel_l2 above 0)", &v);
    p.tolerances[std::string(k.str())] = x;
  }
  if (p.tolerances.empty()) rd.error("tolerance", "must name at least one output", root.get("tolerance"));

  const auto& targets = rd.table(root, "targets", "");
  for (const auto& [arch, v] : targets) {
    std::string path = "targets." + std::string(arch.str());
    try {
      arch_info(std::string(arch.str()));
    } catch (const InputError& e) {
      rd.error(path, e.what(), &v);
    }
    const auto* t = v.as_table();
    if (!t) rd.error(path, "must be a table { groups = [[...]], ptx = [...] }", &v);
    rd.keys(*t, path + ".", {"groups", "ptx", "work"});
    ArchTargets at;
    at.arch = std::string(arch.str());
    const auto* groups = t->get("groups");
    if (!groups || !groups->as_array())
      rd.error(path + ".groups", "must be an array of arrays of SASS opcode globs", &v);
    for (size_t i = 0; i < groups->as_array()->size(); ++i)
      at.groups.push_back(rd.strings((*groups->as_array())[i], path + ".groups[" + std::to_string(i) + "]"));
    if (const auto* ptx = t->get("ptx")) at.ptx = rd.strings(*ptx, path + ".ptx");
    if (const auto* w = t->get("work")) {
      const auto* wt = w->as_table();
      if (!wt)
        rd.error(path + ".work",
                 "must be a table { tensor_flop_share = 0.9, max_other_math_share = 0.1, tma_load_share = 0.9 }", w);
      rd.keys(
          *wt, path + ".work.",
          {"tensor_flop_share", "max_target_flop_ratio", "max_other_math_share", "tma_load_share", "tma_byte_share"});
      TargetWork& k = at.work;
      k.tensor_flop_share = rd.number(*wt, "tensor_flop_share", path + ".work.", 0);
      k.max_target_flop_ratio = rd.number(*wt, "max_target_flop_ratio", path + ".work.", k.max_target_flop_ratio);
      k.max_other_math_share = rd.number(*wt, "max_other_math_share", path + ".work.", k.max_other_math_share);
      k.tma_load_share = rd.number(*wt, "tma_load_share", path + ".work.", 0);
      k.tma_byte_share = rd.number(*wt, "tma_byte_share", path + ".work.", 0);
      auto in = [&](const char* key, double value, const char* range, double lo, double hi, const char* what) {
        if (!(value >= lo && value <= hi))
          rd.error(path + ".work." + key, std::string("must lie in ") + range + " (" + what + ")", w);
      };
      in("tensor_flop_share", k.tensor_flop_share, "[0, 1]", 0, 1, "a share of the problem's FLOPs");
      in("max_target_flop_ratio", k.max_target_flop_ratio, "[1, 10]", 1, 10,
         "target FLOPs per problem FLOP, recompute included");
      in("max_other_math_share", k.max_other_math_share, "[0, 1000]", 0, 1000, "a share of the problem's FLOPs");
      in("tma_load_share", k.tma_load_share, "[0, 1]", 0, 1, "a share of the global bytes the kernels read");
      in("tma_byte_share", k.tma_byte_share, "[0, 1000]", 0, 1000, "bytes moved per operand byte");
      if (k.tma_byte_share > 0 && p.operand_bytes.empty())
        rd.error(path + ".work.tma_byte_share", "needs the problem's operand_bytes (a formula over the dims)", w);
    }
    p.targets.push_back(std::move(at));
  }

  const auto& shapes = rd.table(root, "shapes", "");
  rd.keys(shapes, "shapes.", {"benchmark", "hidden", "sanitize", "probe", "random"});
  auto checked = [&](const toml::node& n, const std::string& path) {
    Shape s = rd.shape(n, path, p.dims);
    if (auto why = p.check_shape(s); !why.empty()) rd.error(path, "violates the constraints: " + why, &n);
    const double f = p.flop_count(s);
    if (!std::isfinite(f) || f <= 0)
      rd.error(path, "its FLOP count (" + p.flops + ") is not a positive finite number", &n);
    if (const double b = p.operand_byte_count(s); !p.operand_bytes.empty() && (!std::isfinite(b) || b <= 0))
      rd.error(path, "its operand bytes (" + p.operand_bytes + ") are not a positive finite number", &n);
    return s;
  };
  auto shape_list = [&](const char* key, bool required) {
    std::vector<Shape> out;
    const auto* n = shapes.get(key);
    if (!n) {
      if (required) rd.error(std::string("shapes.") + key, "missing (an array of shapes is required)");
      return out;
    }
    const auto* arr = n->as_array();
    if (!arr) rd.error(std::string("shapes.") + key, "must be an array of shapes", n);
    if (arr->size() > kMaxShapesPerList)
      rd.error(std::string("shapes.") + key,
               "lists " + std::to_string(arr->size()) + " shapes (at most " + std::to_string(kMaxShapesPerList) + ")",
               n);
    for (size_t i = 0; i < arr->size(); ++i)
      out.push_back(checked((*arr)[i], std::string("shapes.") + key + "[" + std::to_string(i) + "]"));
    return out;
  };
  p.benchmark_shapes = shape_list("benchmark", true);
  if (p.benchmark_shapes.empty()) rd.error("shapes.benchmark", "must list at least one shape", shapes.get("benchmark"));
  p.hidden_shapes = shape_list("hidden", false);
  for (const char* key : {"sanitize", "probe"}) {
    const auto* n = shapes.get(key);
    if (!n) rd.error(std::string("shapes.") + key, "missing (one shape is required)");
    (std::string(key) == "sanitize" ? p.sanitize_shape : p.probe_shape) = checked(*n, std::string("shapes.") + key);
  }
  if (const auto* r = shapes.get("random")) {
    const auto* t = r->as_table();
    if (!t) rd.error("shapes.random", "must be a table { count, max = { ... } }", r);
    rd.keys(*t, "shapes.random.", {"count", "max"});
    if (const auto* c = t->get("count"))
      p.random_hidden_shapes = static_cast<int>(rd.bounded(*c, "shapes.random.count", 0, kMaxRandomShapes));
    if (const auto* m = t->get("max")) p.random_shape_max = checked(*m, "shapes.random.max");
    else if (p.random_hidden_shapes > 0) rd.error("shapes.random.max", "missing (bounds for drawn shapes)", r);
  }
  if (const auto* c = root.get("correctness")) {
    const auto* t = c->as_table();
    if (!t) rd.error("correctness", "must be a table", c);
    rd.keys(*t, "correctness.", {"seeds"});
    if (const auto* s = t->get("seeds"))
      p.correctness_seeds = static_cast<int>(rd.bounded(*s, "correctness.seeds", 1, kMaxCorrectnessSeeds));
  }
  return p;
}

}  // namespace ptxbench
