// Loads and checks a problem's Triton ABI (triton/abi.toml): the entry's buffers and scalars in order.
#include "problems/triton_abi.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "problems/flop_expr.h"
#include "problems/toml_file.h"

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

struct AbiReader {
  std::string file;
  [[noreturn]] void error(const std::string& path, const std::string& what, const toml::node* at = nullptr) const {
    const std::string line = at && at->source().begin.line ? ":" + std::to_string(at->source().begin.line) : "";
    throw InputError(file + line + ": '" + path + "': " + what);
  }
  std::string string(const toml::table& t, const char* key, const std::string& path, bool required) const {
    const auto* n = t.get(key);
    if (!n) {
      if (required) error(path + "." + key, "missing (a string is required)");
      return "";
    }
    if (auto v = n->value_exact<std::string>()) return *v;
    error(path + "." + key, "must be a string", n);
  }
};

// An expression over the dims (and integers): every name in it must be a dim. Checked by
// evaluating it with every dim set to 1; eval_flop_expr says where a syntax error is.
void check_expression(const AbiReader& rd, const std::string& expr, const ProblemSpec& p, const std::string& path,
                      const toml::node* at) {
  Shape ones;
  for (const auto& d : p.dims) ones[d] = 1;
  try {
    eval_flop_expr(expr, ones);
  } catch (const InputError& e) {
    rd.error(path, "'" + expr + "' is not an expression over the dims (" + e.what() + ")", at);
  }
}

long long evaluate(const std::string& expr, const Shape& shape) {
  const double v = eval_flop_expr(expr, shape);
  if (!std::isfinite(v) || v < 0 || v > 9.0e15 || v != std::floor(v))
    throw InputError("triton abi: '" + expr + "' is not a non-negative integer for this shape");
  return static_cast<long long>(v);
}

}  // namespace

std::vector<std::string> triton_dtypes() {
  return {"bfloat16", "float16", "float32", "float8_e4m3fn", "uint8", "int32"};
}

std::optional<TritonAbi> load_triton_abi(const ProblemSpec& p) {
  const fs::path file = p.dir / "triton" / "abi.toml";
  if (!fs::exists(file)) return std::nullopt;
  AbiReader rd{file.string()};
  const toml::table root = parse_toml_file(file);
  for (const auto& [k, v] : root)
    if (k.str() != "arguments") rd.error(std::string(k.str()), "unknown key (known here: arguments)", &v);
  const auto* args = root.get_as<toml::array>("arguments");
  if (!args || args->empty())
    rd.error("arguments", "missing (an array of { name, dtype, shape } or { name [, value] })");
  TritonAbi abi;
  abi.file = file;
  std::set<std::string> names;
  const auto dtypes = triton_dtypes();
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string path = "arguments[" + std::to_string(i) + "]";
    const toml::node& n = (*args)[i];
    const auto* t = n.as_table();
    if (!t) rd.error(path, "must be a table", &n);
    for (const auto& [k, v] : *t)
      if (k.str() != "name" && k.str() != "dtype" && k.str() != "shape" && k.str() != "value" && k.str() != "output")
        rd.error(path + "." + std::string(k.str()), "unknown key (known here: name, dtype, shape, value, output)", &v);
    TritonArgument a;
    a.name = rd.string(*t, "name", path, true);
    if (a.name.empty() || a.name == "stream" || !names.insert(a.name).second)
      rd.error(path + ".name",
               "'" + a.name + "' is empty, repeated or 'stream' (the stream is always the last argument)", &n);
    a.dtype = rd.string(*t, "dtype", path, false);
    a.value = rd.string(*t, "value", path, false);
    if (const auto* o = t->get("output")) {
      if (auto b = o->value_exact<bool>()) a.output = *b;
      else rd.error(path + ".output", "must be a boolean", o);
    }
    if (a.is_buffer()) {
      if (std::find(dtypes.begin(), dtypes.end(), a.dtype) == dtypes.end())
        rd.error(path + ".dtype",
                 "'" + a.dtype +
                     "' is not a dtype the harness gives (bfloat16, float16, float32, float8_e4m3fn, uint8, int32)",
                 t->get("dtype"));
      if (!a.value.empty()) rd.error(path + ".value", "a buffer has a shape, not a value", t->get("value"));
      const auto* shape = t->get_as<toml::array>("shape");
      if (!shape || shape->empty())
        rd.error(path + ".shape", "missing (a buffer needs a shape: an array of expressions over the dims)", &n);
      for (size_t d = 0; d < shape->size(); ++d) {
        const std::string dpath = path + ".shape[" + std::to_string(d) + "]";
        if (auto s = (*shape)[d].value_exact<std::string>()) a.shape.push_back(*s);
        else if (auto v = (*shape)[d].value_exact<int64_t>(); v && *v > 0) a.shape.push_back(std::to_string(*v));
        else rd.error(dpath, "must be an expression string or a positive integer", &(*shape)[d]);
        check_expression(rd, a.shape.back(), p, dpath, &(*shape)[d]);
      }
    } else {
      if (t->get("shape"))
        rd.error(path + ".shape", "a scalar has no shape (give a dtype to make it a buffer)", t->get("shape"));
      if (a.output) rd.error(path + ".output", "only a buffer can be an output", t->get("output"));
      if (a.value.empty() && std::find(p.dims.begin(), p.dims.end(), a.name) == p.dims.end())
        rd.error(path + ".name", "'" + a.name + "' is neither one of the problem's dims nor given a value", &n);
      if (!a.value.empty()) check_expression(rd, a.value, p, path + ".value", t->get("value"));
    }
    abi.arguments.push_back(std::move(a));
  }
  return abi;
}

std::string TritonAbi::signature(const std::string& entry) const {
  std::string s = entry + "(";
  for (const auto& a : arguments) s += a.name + ", ";
  return s + "stream)";
}

json TritonAbi::scalar_values(const Shape& shape) const {
  json out = json::object();
  for (const auto& a : arguments)
    if (!a.is_buffer()) out[a.name] = evaluate(a.value.empty() ? a.name : a.value, shape);
  return out;
}

json TritonAbi::arguments_json(const Shape& shape) const {
  json out = json::array();
  for (const auto& a : arguments) {
    if (!a.is_buffer()) {
      out.push_back({{"name", a.name}});
      continue;
    }
    json dims = json::array();
    for (const auto& e : a.shape) dims.push_back(evaluate(e, shape));
    out.push_back({{"name", a.name}, {"dtype", a.dtype}, {"shape", dims}, {"output", a.output}});
  }
  return out;
}

}  // namespace ptxbench
