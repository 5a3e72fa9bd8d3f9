// Resolves one run's configuration: defaults, then the TOML run config, then the command line.
#include "agent/run_config.h"

#include <toml++/toml.h>

#include "problems/toml_file.h"

#include <set>

#include "core/error.h"
#include "core/language.h"

namespace ptxbench {
namespace {

std::string where(const std::filesystem::path& file, const toml::node& n, const std::string& key) {
  const auto& src = n.source();
  return file.string() + (src.begin ? ":" + std::to_string(src.begin.line) : "") + ": '" + key + "'";
}

json scalar_to_json(const toml::node& n, const std::string& at) {
  if (auto b = n.value_exact<bool>()) return *b;
  if (auto i = n.value_exact<int64_t>()) return *i;
  if (auto d = n.value_exact<double>()) return *d;
  if (auto s = n.value_exact<std::string>()) return *s;
  throw InputError(at + ": must be a boolean, number or string");
}

int int_of(const toml::node& n, const std::string& at) {
  auto v = n.value_exact<int64_t>();
  if (!v) throw InputError(at + ": must be an integer");
  return static_cast<int>(*v);
}
double number_of(const toml::node& n, const std::string& at) {
  auto v = n.value<double>();
  if (!v) throw InputError(at + ": must be a number");
  return *v;
}
bool bool_of(const toml::node& n, const std::string& at) {
  auto v = n.value_exact<bool>();
  if (!v) throw InputError(at + ": must be true or false");
  return *v;
}
std::string string_of(const toml::node& n, const std::string& at) {
  auto v = n.value_exact<std::string>();
  if (!v) throw InputError(at + ": must be a string");
  return *v;
}
// "a,b" or ["a", "b"] -> "a,b"
std::string list_of(const toml::node& n, const std::string& at) {
  if (auto s = n.value_exact<std::string>()) return *s;
  const auto* arr = n.as_array();
  if (!arr) throw InputError(at + ": must be a string or an array of strings");
  std::string out;
  for (const auto& item : *arr) {
    auto s = item.value_exact<std::string>();
    if (!s) throw InputError(at + ": every entry must be a string");
    out += (out.empty() ? "" : ",") + *s;
  }
  return out;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    std::string item = s.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = comma + 1;
  }
  return out;
}

template <class F>
void for_each_key(const toml::table& t, const std::filesystem::path& file, const std::string& prefix,
                  const std::set<std::string>& known, F handle) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (!known.count(key)) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      throw InputError(where(file, v, prefix + key) + ": unknown key (known: " + list + ")");
    }
    handle(key, v, where(file, v, prefix + key));
  }
}

}  // namespace

void check_model_arg_name(const std::string& key, const std::string& at) {
  static const std::set<std::string> kSecretNames{"api_key",  "key",           "token",        "secret",
                                                  "password", "authorization", "access_token", "bearer"};
  std::string lower = key;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (kSecretNames.count(lower) || lower.ends_with("_key") || lower.ends_with("_token") || lower.ends_with("_secret"))
    throw InputError(at + ": '" + key +
                     "' would store a secret with the run; name the environment variable that "
                     "holds it instead (e.g. api_key_env=OPENAI_API_KEY)");
}

std::pair<std::string, json> parse_model_arg(const std::string& pair) {
  const auto eq = pair.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--model-arg '" + pair + "': expected KEY=VALUE (e.g. temperature=0.7, base_url=http://...)");
  std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
  check_model_arg_name(key, "--model-arg");
  json v = json::parse(value, nullptr, false);
  if (v.is_discarded() || v.is_object() || v.is_array() || v.is_string()) v = value;
  return {key, v};
}

int parse_context_turns(const std::string& s) {
  if (s == "all") return -1;
  try {
    size_t used = 0;
    int k = std::stoi(s, &used);
    if (used == s.size() && k >= 0) return k;
  } catch (const std::exception&) {
  }
  throw InputError("--context-turns '" + s + "': expected a number of turns (0 or more) or 'all'");
}

void validate_run_config(const RunConfig& c) {
  if (c.model.empty())
    throw InputError("no model given: use --model PROVIDER:MODEL (or model = \"...\" in the run config)");
  if (c.trajectories < 1)
    throw InputError("trajectories must be at least 1 (got " + std::to_string(c.trajectories) + ")");
  if (c.turns < 1) throw InputError("turns must be at least 1 (got " + std::to_string(c.turns) + ")");
  if (c.context_turns < -1) throw InputError("context_turns must be 0 or more, or 'all'");
  if (c.max_infra_errors < 0) throw InputError("max_infra_errors must be 0 or more");
  if (c.infra_retry_delay_s < 0) throw InputError("infra_retry_delay_s must be 0 or more");
  if (c.parallel < 0) throw InputError("parallel must be 0 (all trajectories) or more");
  if (c.compile_jobs < 0) throw InputError("compile_jobs must be 0 (one per core) or more");
  if (c.limit && *c.limit < 1) throw InputError("limit must be at least 1");
  if (c.problems.empty()) throw InputError("no problems given: use --problems LIST or all");
  if (!language_from_string(c.language)) throw InputError("language must be cuda or triton (got '" + c.language + "')");
  for (const auto& [k, v] : c.model_args.items()) check_model_arg_name(k, "model argument");
  if (c.repair_notes.k < 1 || c.repair_notes.k > 20)
    throw InputError("repair notes: k must be in 1..20 (got " + std::to_string(c.repair_notes.k) + ")");
  if (c.repair_notes.source.empty() && (c.repair_notes.with_fixed_kernel || c.repair_notes.same_problem))
    throw InputError("--with-fixed-kernel and --notes-same-problem need --repair-notes NOTES");
}

json RepairNotesConfig::to_json() const {
  return {{"source", source},
          {"sha256", sha256},
          {"k", k},
          {"with_fixed_kernel", with_fixed_kernel},
          {"same_problem", same_problem}};
}

std::string RepairNotesConfig::condition() const {
  if (source.empty()) return "";
  return std::string(with_fixed_kernel ? "notes+kernel" : "notes") + (same_problem ? "@same-problem" : "");
}

json RunConfig::to_json() const {
  json p = json::object();
  for (const auto& [m, t] : prices)
    p[m] = {{"input_per_mtok", t.input_per_mtok}, {"output_per_mtok", t.output_per_mtok}};
  json s = json::object();
  for (const auto& [problem, split] : splits) s[problem] = split;
  return {{"model", model},
          {"model_args", model_args},
          {"problems", problems},
          {"suite", suite},
          {"splits", s},
          {"arch", arch},
          {"language", language},
          {"trajectories", trajectories},
          {"turns", turns},
          {"knowledge", knowledge},
          {"context_turns", context_turns},
          {"max_infra_errors", max_infra_errors},
          {"infra_retry_delay_s", infra_retry_delay_s},
          {"parallel", parallel},
          {"compile_jobs", compile_jobs},
          {"limit", limit ? json(*limit) : json(nullptr)},
          {"run_name", run_name},
          {"rejudge", rejudge},
          {"evaluation",
           {{"gpu", use_gpu}, {"sanitize", sanitize}, {"probe", probe}, {"timing", timing}, {"device", device}}},
          {"prices", p},
          {"repair_notes", repair_notes.to_json()}};
}

std::optional<TokenPrices> RunConfig::prices_for_model() const {
  if (auto it = prices.find(model); it != prices.end()) return it->second;
  const auto colon = model.find(':');
  if (colon != std::string::npos)
    if (auto it = prices.find(model.substr(colon + 1)); it != prices.end()) return it->second;
  return std::nullopt;
}

RunConfig load_run_config_file(const std::filesystem::path& file, RunConfig c) {
  const toml::table root = parse_toml_file(file);
  const std::set<std::string> top{"model",
                                  "problems",
                                  "suite",
                                  "arch",
                                  "language",
                                  "trajectories",
                                  "turns",
                                  "knowledge",
                                  "context_turns",
                                  "max_infra_errors",
                                  "infra_retry_delay_s",
                                  "parallel",
                                  "compile_jobs",
                                  "limit",
                                  "run_name",
                                  "rejudge",
                                  "model_args",
                                  "evaluation",
                                  "prices",
                                  "repair_notes"};
  for_each_key(root, file, "", top, [&](const std::string& key, const toml::node& v, const std::string& at) {
    if (key == "model") c.model = string_of(v, at);
    else if (key == "problems") c.problems = split_list(list_of(v, at));
    else if (key == "suite") c.suite = string_of(v, at);
    else if (key == "arch") c.arch = string_of(v, at);
    else if (key == "language") c.language = string_of(v, at);
    else if (key == "trajectories") c.trajectories = int_of(v, at);
    else if (key == "turns") c.turns = int_of(v, at);
    else if (key == "knowledge") c.knowledge = list_of(v, at);
    else if (key == "context_turns")
      c.context_turns = v.is_string() ? parse_context_turns(string_of(v, at)) : int_of(v, at);
    else if (key == "max_infra_errors") c.max_infra_errors = int_of(v, at);
    else if (key == "infra_retry_delay_s") c.infra_retry_delay_s = number_of(v, at);
    else if (key == "parallel") c.parallel = int_of(v, at);
    else if (key == "compile_jobs") c.compile_jobs = int_of(v, at);
    else if (key == "limit") c.limit = int_of(v, at);
    else if (key == "run_name") c.run_name = string_of(v, at);
    else if (key == "rejudge") c.rejudge = bool_of(v, at);
    else if (key == "model_args") {
      const auto* t = v.as_table();
      if (!t) throw InputError(at + ": must be a table");
      for (const auto& [k, x] : *t) {
        const std::string name(k.str());
        check_model_arg_name(name, where(file, x, "model_args." + name));
        c.model_args[name] = scalar_to_json(x, where(file, x, "model_args." + name));
      }
    } else if (key == "repair_notes") {
      const auto* t = v.as_table();
      if (!t) throw InputError(at + ": must be a table");
      for_each_key(*t, file, "repair_notes.", {"source", "k", "with_fixed_kernel", "same_problem"},
                   [&](const std::string& k, const toml::node& x, const std::string& a) {
                     if (k == "source") c.repair_notes.source = string_of(x, a);
                     else if (k == "k") c.repair_notes.k = int_of(x, a);
                     else if (k == "with_fixed_kernel") c.repair_notes.with_fixed_kernel = bool_of(x, a);
                     else c.repair_notes.same_problem = bool_of(x, a);
                   });
    } else if (key == "evaluation") {
      const auto* t = v.as_table();
      if (!t) throw InputError(at + ": must be a table");
      for_each_key(*t, file, "evaluation.", {"gpu", "sanitize", "probe", "timing", "device"},
                   [&](const std::string& k, const toml::node& x, const std::string& a) {
                     if (k == "gpu") c.use_gpu = bool_of(x, a);
                     else if (k == "sanitize") c.sanitize = bool_of(x, a);
                     else if (k == "probe") c.probe = bool_of(x, a);
                     else if (k == "timing") c.timing = bool_of(x, a);
                     else c.device = int_of(x, a);
                   });
    } else if (key == "prices") {
      const auto* t = v.as_table();
      if (!t) throw InputError(at + ": must be a table of [prices.\"PROVIDER:MODEL\"] tables");
      for (const auto& [m, x] : *t) {
        const std::string model(m.str());
        const auto* pt = x.as_table();
        const std::string pa = where(file, x, "prices." + model);
        if (!pt) throw InputError(pa + ": must be a table with input_per_mtok and output_per_mtok");
        TokenPrices tp;
        bool in = false, out = false;
        for_each_key(*pt, file, "prices." + model + ".", {"input_per_mtok", "output_per_mtok"},
                     [&](const std::string& k, const toml::node& y, const std::string& a) {
                       (k == "input_per_mtok" ? tp.input_per_mtok : tp.output_per_mtok) = number_of(y, a);
                       (k == "input_per_mtok" ? in : out) = true;
                     });
        if (!in || !out) throw InputError(pa + ": needs both input_per_mtok and output_per_mtok");
        c.prices[model] = tp;
      }
    }
  });
  return c;
}

}  // namespace ptxbench
