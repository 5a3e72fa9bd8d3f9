// Builds a Triton candidate without a GPU: the sandboxed scan of its Python, then a compile-only build.
#include "compile/triton_driver.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error.h"
#include "core/subprocess.h"
#include "sandbox/capabilities.h"
#include "sandbox/policy.h"

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

fs::path canonical_or(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? p : c;
}

std::string env_or(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A Python traceback's last line says what went wrong.
std::string last_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `module` of ptxbench_triton with the interpreter: -B (no .pyc written), -s (no user site),
// -E (no PYTHON* variables); the package folder goes on sys.path by hand, nothing else does.
std::vector<std::string> module_command(const TritonToolchain& tc, const std::string& module,
                                        const std::vector<std::string>& args) {
  std::vector<std::string> argv{
      tc.python.string(),
      "-B",
      "-s",
      "-E",
      "-c",
      "import sys, runpy; sys.path.insert(0, sys.argv[1]); m = sys.argv[2]; "
      "sys.argv = [m] + sys.argv[3:]; runpy.run_module(m, run_name='__main__', alter_sys=True)",
      tc.root.string(),
      module};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

struct Step {
  ProcessResult process;
  std::string command;
  std::string infra_error;
};

Step run_step(const std::vector<std::string>& command, const sandbox::Policy& policy, const TritonBuildOptions& o,
              json* mechanisms) {
  ProcessOptions process;
  process.timeout = o.timeout;
  std::vector<std::string> argv = command;
  if (o.sandbox) {
    auto wrapped = sandbox::sandboxed(policy, command, sandbox::host_capabilities());
    argv = std::move(wrapped.argv);
    process.environment = std::move(wrapped.environment);
    process.rlimits = std::move(wrapped.rlimits);
    process.no_new_privs = true;
    if (mechanisms) *mechanisms = std::move(wrapped.mechanisms);
  } else {
    process.extra_env = policy.env_set;
    process.working_dir = policy.workdir.string();
    if (mechanisms) *mechanisms = {{"used", false}, {"why", "the build was asked to run without a sandbox"}};
  }
  Step s{run_process(argv, process), join_command(command), ""};
  const ProcessResult& r = s.process;
  if (r.exited && r.exit_code == 125 && r.err.starts_with("ptxbench-sandbox-exec:"))
    s.infra_error = "the build sandbox could not be set up: " + first_line(r.err);
  else if (r.exited && r.exit_code == 1 && r.err.starts_with("bwrap: "))
    s.infra_error = "the build sandbox (bubblewrap) could not be set up: " + first_line(r.err);
  else if (r.exited && r.exit_code == 127 && r.err.starts_with("cannot execute")) s.infra_error = first_line(r.err);
  return s;
}

// Host paths in the tools' output become names: the candidate's file its display name, the
// interpreter's and the tools' folders placeholders.
std::string withhold_paths(std::string text, const std::vector<std::pair<std::string, std::string>>& replace) {
  for (const auto& [from, to] : replace) {
    if (from.empty() || from == "/") continue;
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  constexpr size_t kMax = 16 * 1024;
  if (text.size() > kMax)
    text = text.substr(0, kMax / 2) + "\n[... trimmed ...]\n" + text.substr(text.size() - kMax / 2);
  return text;
}

Diagnostic diagnostic_from(const json& d, const std::string& display_name, const std::string& tool) {
  Diagnostic out;
  out.file = d.contains("file") && d["file"].is_string() && !d["file"].get<std::string>().empty() ? display_name : "";
  out.line = d.contains("line") && d["line"].is_number_integer() ? d["line"].get<int>() : 0;
  out.column = d.contains("column") && d["column"].is_number_integer() ? d["column"].get<int>() : 0;
  out.severity = d.value("severity", "error");
  out.message = d.value("message", "");
  out.tool = tool;
  return out;
}

}  // namespace

json TritonToolchain::to_json() const {
  json j = {{"root", root.string()}, {"python", python.string()}, {"triton_version", triton_version}};
  if (!error.empty()) j["error"] = error;
  return j;
}

const TritonToolchain& find_triton_toolchain(const fs::path& problems_root) {
  static std::mutex mu;
  static std::map<std::string, TritonToolchain> cache;
  std::string root_env = env_or("PTXBENCH_TRITON_ROOT"), python_env = env_or("PTXBENCH_TRITON_PYTHON");
  fs::path root_in = fs::absolute(problems_root).lexically_normal();
  if (!root_in.has_filename()) root_in = root_in.parent_path();
  const fs::path root = canonical_or(root_env.empty() ? root_in.parent_path() / "triton_track" : fs::path(root_env));
  const fs::path python = python_env.empty()
                              ? root / ".venv" / "bin" / "python"
                              // absolute, not canonical: a venv's python is a link whose target lacks the venv
                              : fs::absolute(python_env).lexically_normal();
  const std::string key = root.string() + "\n" + python.string();
  std::lock_guard lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  TritonToolchain tc;
  tc.root = root;
  tc.python = python;
  if (!fs::is_directory(root / "ptxbench_triton")) {
    tc.error = "the Triton tools (ptxbench_triton) are not in " + root.string() + " (set PTXBENCH_TRITON_ROOT)";
  } else if (!fs::exists(python)) {
    tc.error =
        "no Python with Triton at " + python.string() + ": run triton_track/setup.sh (or set PTXBENCH_TRITON_PYTHON)";
  } else {
    ProcessOptions po;
    po.timeout = std::chrono::seconds(120);
    const ProcessResult r = run_process(
        {python.string(), "-s", "-E", "-c",
         "import sys, json, os, sysconfig, triton\n"
         "v = sysconfig.get_config_var\n"
         "dirs = [v('LIBDIR') or '', os.path.join(v('LIBDIR') or '', v('MULTIARCH') or ''), "
         "os.path.join(sys.base_prefix, 'lib')]\n"
         "names = [n for n in (v('INSTSONAME'), v('LDLIBRARY'), 'libpython%d.%d.so.1.0' % sys.version_info[:2]) if n "
         "and '.so' in n]\n"
         "libs = [os.path.join(d, n) for d in dirs for n in names if os.path.isfile(os.path.join(d, n))]\n"
         "print(json.dumps({'prefix': sys.prefix, 'base_prefix': sys.base_prefix, 'library': libs[0] if libs else '', "
         "'version': '%d.%d' % sys.version_info[:2], 'path': [p for p in sys.path if p], "
         "'executable': os.path.realpath(sys.executable), 'triton': triton.__version__}))"},
        po);
    try {
      if (!r.ok()) throw Error(r.describe() + ": " + first_line(r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1)));
      const json j = json::parse(r.out);
      tc.triton_version = j.at("triton").get<std::string>();
      for (const char* k : {"prefix", "base_prefix"})
        tc.python_prefixes.push_back(canonical_or(j.at(k).get<std::string>()));
      tc.python_prefixes.push_back(canonical_or(fs::path(j.at("executable").get<std::string>()).parent_path()));
      tc.python_prefixes.push_back(canonical_or(python).parent_path());
      tc.python_home = j.at("base_prefix").get<std::string>();
      tc.python_path = j.at("path").get<std::vector<std::string>>();
      tc.python_library = j.at("library").get<std::string>();
      if (tc.python_library.empty())
        tc.library_error = python.string() + " (Python " + j.value("version", "?") +
                           ") has no shared library (libpython" + j.value("version", "") +
                           ".so), which the GPU worker embeds to run Triton candidates: use a "
                           "Python built with --enable-shared (PTXBENCH_TRITON_PYTHON)";
      else tc.python_prefixes.push_back(canonical_or(tc.python_library).parent_path());
    } catch (const std::exception& e) {
      tc.error = python.string() + " cannot import triton (" + e.what() + "): run triton_track/setup.sh";
    }
  }
  return cache.emplace(key, std::move(tc)).first->second;
}

TritonBuildResult build_triton_candidate(const fs::path& source_in, const fs::path& out_dir_in,
                                         const TritonToolchain& tc, const TritonBuildOptions& o) {
  if (!fs::is_regular_file(source_in)) throw InputError("candidate source not found: " + source_in.string());
  TritonBuildResult result;
  if (!tc.usable()) {
    result.infra_error = "the Triton toolchain is not usable: " + tc.error;
    return result;
  }
  const fs::path source = canonical_or(source_in);
  const fs::path out_dir = canonical_or(out_dir_in);
  const fs::path kernels = out_dir / "kernels", cache = out_dir / "triton-cache", scratch = out_dir / "tmp";
  fs::remove_all(kernels);  // no cubin of an earlier build may be picked up
  fs::remove_all(cache);
  for (const auto& d : {kernels, cache, scratch}) fs::create_directories(d);
  const std::string display = o.display_name.empty() ? source.filename().string() : o.display_name;
  result.cache = cache;

  sandbox::Policy policy;
  policy.profile = "compiler";
  policy.read_only = sandbox::system_read_only();
  for (const auto& p : tc.python_prefixes) policy.read_only.push_back(p);
  // The whole folder: Python lists a sys.path entry before importing from it (Landlock refuses the
  // listing of a folder that only holds a bound child). It holds nothing secret.
  policy.read_only.push_back(tc.root);
  policy.read_only.push_back(source);
  if (!o.launchers_libcuda_dir.empty()) policy.read_only.push_back(o.launchers_libcuda_dir);
  policy.read_write = {out_dir};
  policy.devices = {"/dev/null"};
  policy.scratch = scratch;
  policy.workdir = out_dir;
  // TRITON_CACHE_DIR: this build's own (see the header). TRITON_HOME: Triton's other state.
  policy.env_set = {"PATH=/usr/bin:/bin",
                    "LC_ALL=C",
                    "TRITON_CACHE_DIR=" + cache.string(),
                    "TRITON_HOME=" + scratch.string(),
                    "PYTHONDONTWRITEBYTECODE=1",
                    "PYTHONHASHSEED=0"};
  policy.limits.address_space = o.memory_limit;
  policy.limits.file_size = 512ULL << 20;
  policy.limits.cpu_seconds = static_cast<unsigned long long>(o.timeout.count()) + 30;
  policy.limits.core_bytes = 0;
  policy.limits.processes = 1024;

  std::vector<std::pair<std::string, std::string>> replace{
      {source.string(), display}, {out_dir.string(), "<build>"}, {tc.root.string(), "<ptxbench_triton>"}};
  for (const auto& p : tc.python_prefixes) replace.push_back({p.string(), "<python>"});
  auto tool_log = [&](const ProcessResult& r) { return withhold_paths(r.err, replace); };

  // 1. The scan: nothing of the candidate runs.
  std::string params;
  for (const auto& p : o.parameters) params += (params.empty() ? "" : ",") + p;
  Step scan = run_step(
      module_command(tc, "ptxbench_triton.static_scan", {source.string(), "--entry", o.entry, "--parameters", params}),
      policy, o, &result.sandbox);
  result.seconds = scan.process.seconds;
  result.command = scan.command;
  if (!scan.infra_error.empty()) {
    result.infra_error = scan.infra_error;
    return result;
  }
  try {
    result.scan = json::parse(scan.process.out);
  } catch (const json::exception&) {
    result.log = tool_log(scan.process);
    result.infra_error =
        "the Triton source scan did not answer (" + scan.process.describe() + "): " + last_line(result.log);
    return result;
  }
  if (!result.scan.value("ok", false)) {
    for (const auto& d : result.scan.value("diagnostics", json::array()))
      result.diagnostics.push_back(diagnostic_from(d, display, "python"));
    if (result.diagnostics.empty())
      result.diagnostics.push_back({display, 0, 0, "error", "the source could not be read as Python", "python"});
    result.log = tool_log(scan.process);
    return result;
  }
  for (const auto& f : result.scan.value("findings", json::array())) {
    const std::string rule = f.value("rule", "");
    const std::string at = display + ":" + std::to_string(f.value("line", 0)) + ": ";
    if (rule == "entry") {  // a missing or mis-declared entry is a build error, as an undefined symbol is for CUDA
      result.diagnostics.push_back(diagnostic_from(f, display, "python"));
      result.diagnostics.back().file = display;
      continue;
    }
    result.forbidden.push_back(at + f.value("message", "") + " [" + rule + "]");
    result.findings.push_back(f);
  }
  if (!result.forbidden.empty() || !result.diagnostics.empty()) return result;

  // 2. The compile: the entry runs once on the compile-only driver.
  const fs::path calls_file = out_dir / "calls.json";
  std::ofstream(calls_file) << o.calls.dump(1);
  std::vector<std::string> compile_args{"--candidate", source.string(),  "--entry", o.entry,
                                        "--arch",      o.arch,           "--calls", calls_file.string(),
                                        "--out",       kernels.string(), "--ptx"};
  if (!o.launchers_libcuda_dir.empty())
    compile_args.insert(compile_args.end(), {"--launchers", o.launchers_libcuda_dir.string()});
  Step build = run_step(module_command(tc, "ptxbench_triton.compile_only", compile_args), policy, o, nullptr);
  const ProcessResult& r = build.process;
  result.command = build.command;
  result.seconds += r.seconds;
  result.timed_out = r.timed_out;
  result.log = tool_log(r);
  if (!build.infra_error.empty()) {
    result.infra_error = build.infra_error;
    return result;
  }
  if (fs::exists(kernels / "manifest.json")) {
    try {
      result.manifest = json::parse(read_text(kernels / "manifest.json"));
    } catch (const json::exception& e) {
      result.manifest = json::object();
    }
  }
  if (r.timed_out) {
    result.diagnostics.push_back(
        {"", 0, 0, "fatal",
         "the Triton build did not finish within " + std::to_string(o.timeout.count()) + " s and was stopped",
         "timeout"});
    return result;
  }
  if (!r.exited || r.exit_code == 1) {
    for (const auto& d : result.manifest.value("diagnostics", json::array()))
      result.diagnostics.push_back(diagnostic_from(d, display, "triton"));
    if (result.diagnostics.empty())
      result.diagnostics.push_back(
          {display, 0, 0, "error",
           r.exited ? withhold_paths(result.manifest.value("error", "the Triton build failed"), replace)
                    : "the Triton build ended abnormally (" + r.describe() + ")",
           "triton"});
    for (auto& d : result.diagnostics) d.message = withhold_paths(d.message, replace);
    return result;
  }
  if (r.exit_code != 0 || !result.manifest.value("ok", false)) {
    result.infra_error = "the Triton compile step failed (" + r.describe() +
                         "): " + withhold_paths(result.manifest.value("error", first_line(result.log)), replace);
    return result;
  }
  for (const auto& k : result.manifest.value("kernels", json::array())) {
    const fs::path cubin = kernels / k.value("cubin", "");
    if (k.value("cubin", "").empty() || cubin.lexically_normal().parent_path() != kernels.lexically_normal() ||
        !fs::is_regular_file(cubin)) {
      result.infra_error =
          "the Triton compile step's manifest names a cubin that is not there: " + k.value("cubin", "");
      return result;
    }
    result.cubins.push_back(cubin);
  }
  for (const auto& e : fs::directory_iterator(kernels))
    if (e.path().extension() == ".ptx") result.ptx.push_back(e.path());
  if (result.cubins.empty()) {
    result.diagnostics.push_back({display, 0, 0, "error", "the entry compiled no kernel", "triton"});
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace ptxbench
