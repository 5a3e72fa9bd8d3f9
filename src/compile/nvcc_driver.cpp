// Builds a candidate .cu into a shared object with nvcc, under a time limit, in the sandbox.
#include "compile/nvcc_driver.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "compile/include_check.h"
#include "compile/log_sanitizer.h"
#include "compile/make_deps.h"
#include "compile/ptx_lines.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "sandbox/capabilities.h"
#include "sandbox/policy.h"

namespace ptxbench {
namespace fs = std::filesystem;
namespace {

constexpr size_t kLogLines = 200;
constexpr size_t kLogBytes = 16 * 1024;

// The first kLogLines lines / kLogBytes bytes, with a note saying how much was dropped.
std::string trim_log(const std::string& log, size_t bytes_not_captured) {
  size_t end = 0, lines = 0;
  while (end < log.size() && lines < kLogLines) {
    size_t nl = log.find('\n', end);
    size_t next = nl == std::string::npos ? log.size() : nl + 1;
    if (next > kLogBytes) break;
    end = next;
    ++lines;
  }
  if (end == 0 && !log.empty()) end = std::min(log.size(), kLogBytes);  // one enormous line
  if (end == log.size() && bytes_not_captured == 0) return log;
  std::string trimmed = log.substr(0, end);
  const size_t dropped_lines = static_cast<size_t>(std::count(log.begin() + end, log.end(), '\n'));
  const size_t dropped_bytes = log.size() - end + bytes_not_captured;
  if (!trimmed.empty() && trimmed.back() != '\n') trimmed += '\n';
  return trimmed + "[log trimmed: " + std::to_string(dropped_lines) + " more lines, " + std::to_string(dropped_bytes) +
         " bytes dropped]\n";
}

// nvcc --keep names the PTX after the source: candidate.cu -> candidate.ptx (or candidate.<x>.ptx).
fs::path find_kept_ptx(const fs::path& keep_dir, const std::string& stem) {
  fs::path exact = keep_dir / (stem + ".ptx");
  if (fs::exists(exact)) return exact;
  std::vector<fs::path> derived;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(keep_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(stem + ".") && name.ends_with(".ptx")) derived.push_back(entry.path());
  }
  return derived.size() == 1 ? derived.front() : fs::path{};
}

void prepend(std::vector<Diagnostic>& diagnostics, Diagnostic d) {
  diagnostics.insert(diagnostics.begin(), std::move(d));
  if (diagnostics.size() > 50) diagnostics.pop_back();
}

bool has_error(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == "error" || d.severity == "fatal"; });
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path canonical_or(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? p : c;
}

// Where nvcc runs and what it may read: everything the dependency check allows, and no more.
struct BuildView {
  fs::path toolkit;  // the CUDA toolkit's root (nvcc's ../)
  IncludeRoots roots;
  sandbox::Policy policy;
};

BuildView build_view(const fs::path& source, const fs::path& out_dir, const fs::path& nvcc, const BuildOptions& o) {
  BuildView v;
  v.toolkit = canonical_or(nvcc).parent_path().parent_path();
  v.roots.readable = o.readable.empty() ? std::vector<fs::path>{source.parent_path()} : o.readable;
  v.roots.readable.push_back(source);
  v.roots.include_dirs = o.include_dirs;
  v.roots.system = {v.toolkit, "/usr/include", "/usr/lib/gcc", "/usr/local/include"};
  auto& p = v.policy;
  p.profile = "compiler";
  p.read_only = sandbox::system_read_only();
  p.read_only.push_back(v.toolkit);
  p.read_only.push_back(canonical_or(nvcc).parent_path());
  for (const auto& d : v.roots.readable) p.read_only.push_back(d);
  for (const auto& d : o.include_dirs) p.read_only.push_back(d);
  p.read_write = {out_dir};
  p.devices = {"/dev/null"};
  p.scratch = out_dir / "tmp";
  p.workdir = out_dir;
  p.env_set = {"PATH=" + (v.toolkit / "bin").string() + ":/usr/bin:/bin", "LC_ALL=C"};
  p.limits.address_space = o.memory_limit;
  p.limits.file_size = 512ULL << 20;
  p.limits.cpu_seconds = static_cast<unsigned long long>(o.timeout.count()) + 30;
  p.limits.core_bytes = 0;
  p.limits.processes = 1024;
  return v;
}

struct Step {
  ProcessResult process;
  std::string command;
  std::string infra_error;  // the sandbox itself failed
};

Step run_step(const std::vector<std::string>& command, const BuildView& view, const BuildOptions& o, json* mechanisms) {
  ProcessOptions process;
  process.timeout = o.timeout;
  std::vector<std::string> argv = command;
  if (o.sandbox) {
    auto wrapped = sandbox::sandboxed(view.policy, command, sandbox::host_capabilities());
    argv = std::move(wrapped.argv);
    process.environment = std::move(wrapped.environment);
    process.rlimits = std::move(wrapped.rlimits);
    process.no_new_privs = true;
    if (mechanisms) *mechanisms = std::move(wrapped.mechanisms);
  } else if (mechanisms) {
    *mechanisms = {{"used", false}, {"why", "the build was asked to run without a sandbox"}};
  }
  Step s{run_process(argv, process), join_command(command), ""};
  if (s.process.exited && s.process.exit_code == 125 && s.process.err.starts_with("ptxbench-sandbox-exec:"))
    s.infra_error = "the build sandbox could not be set up: " + s.process.err.substr(0, s.process.err.find('\n'));
  else if (s.process.exited && s.process.exit_code == 1 && s.process.err.starts_with("bwrap: "))
    s.infra_error =
        "the build sandbox (bubblewrap) could not be set up: " + s.process.err.substr(0, s.process.err.find('\n'));
  else if (s.process.exited && s.process.exit_code == 127 && s.process.err.starts_with("cannot execute"))
    s.infra_error = s.process.err.substr(0, s.process.err.find('\n'));
  return s;
}

// ptxas reports PTX lines: map each to the candidate's line through the kept PTX's .loc directives.
void map_ptxas_lines(std::vector<Diagnostic>& diagnostics, std::string& log, const fs::path& ptx, const LogView& view) {
  if (ptx.empty()) return;
  const std::string text = read_text(ptx);
  std::map<int, std::string> where;  // PTX line -> "candidate.cu:42"
  for (auto& d : diagnostics) {
    if (d.file.empty() || fs::path(d.file).filename() != ptx.filename() || d.line <= 0) continue;
    const auto src = ptx_source_line(text, d.line);
    if (!src) continue;
    const int ptx_line = d.line;
    d.message += " (PTX line " + std::to_string(ptx_line) + ")";
    d.file = src->file;
    d.line = src->line;
    where[ptx_line] = display_path(src->file, view) + ":" + std::to_string(src->line);
  }
  // The log's ptxas lines say the same: "ptxas x.ptx, line 33; error : ..." gets "[candidate.cu:42]".
  static const std::regex at(R"(^(ptxas \S+, line (\d+);.*)$)");
  std::ostringstream out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.size() < 4096 && std::regex_match(line, m, at) && where.count(std::stoi(m[2])))
      line += " [" + where[std::stoi(m[2])] + "]";
    out << line << "\n";
  }
  log = out.str();
}

void sanitize(std::vector<Diagnostic>& diagnostics, const LogView& view) {
  size_t withheld = 0;
  std::vector<Diagnostic> kept;
  for (auto& d : diagnostics) {
    if (!d.file.empty() && fs::path(d.file).is_absolute() && !path_under(d.file, view.allowed) &&
        display_path(d.file, view) != view.display_name) {
      ++withheld;
      continue;
    }
    if (!d.file.empty()) d.file = display_path(d.file, view);
    d.message = sanitize_compiler_log(d.message, view);
    if (!d.message.empty() && d.message.back() == '\n') d.message.pop_back();
    kept.push_back(std::move(d));
  }
  if (withheld)
    kept.push_back({"", 0, 0, "error",
                    std::to_string(withheld) + " diagnostic(s) about files outside the candidate's folder withheld",
                    "nvcc"});
  diagnostics = std::move(kept);
}

}  // namespace

BuildResult build_candidate(const fs::path& source_in, const fs::path& out_dir, const BuildOptions& options_in) {
  if (!fs::is_regular_file(source_in)) throw InputError("candidate source not found: " + source_in.string());
  {
    std::ifstream probe(source_in, std::ios::binary);
    char c;
    if (!probe || (!probe.get(c) && !probe.eof()))
      throw InputError("candidate source cannot be read: " + source_in.string());
  }
  const fs::path source = canonical_or(source_in);
  // Canonical folders: inside the sandbox's view only the bound paths exist, so `..` through an
  // unbound folder would not resolve.
  BuildOptions options = options_in;
  for (auto& d : options.include_dirs) d = canonical_or(d);
  for (auto& d : options.readable) d = canonical_or(d);
  const fs::path nvcc = options.nvcc.empty() ? find_nvcc() : options.nvcc;
  if (nvcc.empty()) fail("nvcc not found: set $PTXBENCH_NVCC, put nvcc on PATH or install CUDA in /usr/local/cuda");

  const fs::path keep_dir = out_dir / "keep";
  const fs::path shared_object = out_dir / "candidate.so";
  fs::remove_all(keep_dir);  // no stale PTX or .so from an earlier build may be picked up
  fs::remove(shared_object);
  fs::create_directories(keep_dir);  // nvcc does not create its --keep-dir
  fs::create_directories(out_dir / "tmp");

  const BuildView view = build_view(source, canonical_or(out_dir), nvcc, options);
  LogView log_view;
  log_view.candidate = source;
  log_view.display_name = options.display_name.empty() ? source.filename().string() : options.display_name;
  log_view.allowed = view.roots.readable;
  for (const auto& d : view.roots.include_dirs) log_view.allowed.push_back(d);
  for (const auto& d : view.roots.system) log_view.allowed.push_back(d);
  log_view.allowed.push_back(canonical_or(out_dir));

  std::vector<std::string> include_flags;
  for (const auto& dir : options.include_dirs) include_flags.push_back("-I" + dir.string());
  const std::vector<std::string> flags = candidate_nvcc_flags(options.arch, options.extra_flags);

  BuildResult result;
  auto finish_log = [&](const ProcessResult& r) {
    const std::string raw = r.out + (r.out.empty() || r.out.ends_with('\n') ? "" : "\n") + r.err;
    result.diagnostics = parse_diagnostics(raw);
    std::string log = raw;
    map_ptxas_lines(result.diagnostics, log, result.ptx, log_view);
    sanitize(result.diagnostics, log_view);
    result.log = trim_log(sanitize_compiler_log(log, log_view), r.dropped_bytes);
  };

  // 1. Every file the build would read (both passes), before anything is compiled.
  std::vector<std::string> deps_cmd{nvcc.string()};
  for (const auto& f : flags)
    if (f.starts_with("-std=") || f.starts_with("-gencode") || f.starts_with("-D") || f.starts_with("--expt") ||
        f == "--use_fast_math")
      deps_cmd.push_back(f);
  deps_cmd.insert(deps_cmd.end(), include_flags.begin(), include_flags.end());
  deps_cmd.insert(deps_cmd.end(), {"-M", source.string()});
  Step deps = run_step(deps_cmd, view, options, &result.sandbox);
  result.seconds = deps.process.seconds;
  if (!deps.infra_error.empty()) {
    result.infra_error = deps.infra_error;
    result.command = deps.command;
    return result;
  }
  if (!deps.process.ok()) {
    result.command = deps.command;
    result.timed_out = deps.process.timed_out;
    ProcessResult errors_only = deps.process;
    errors_only.out.clear();  // stdout holds the dependency list only
    finish_log(errors_only);
    if (deps.process.timed_out)
      prepend(result.diagnostics,
              {"", 0, 0, "fatal",
               "listing the build's files (nvcc -M) did not finish within the build time limit of " +
                   std::to_string(options.timeout.count()) + " s and was stopped",
               "timeout"});
    else if (!has_error(result.diagnostics))
      prepend(result.diagnostics, {"", 0, 0, "error",
                                   "nvcc -M failed (" + deps.process.describe() +
                                       ") without a recognizable error message; see the build log",
                                   "nvcc"});
    return result;
  }
  result.forbidden = check_dependencies(parse_make_dependencies(deps.process.out), out_dir, view.roots, source);
  if (!result.forbidden.empty()) {
    result.command = deps.command;
    return result;
  }

  // 2. The build.
  std::vector<std::string> argv{nvcc.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), include_flags.begin(), include_flags.end());
  for (const std::string& arg : {std::string("--keep"), std::string("--keep-dir"), keep_dir.string(), std::string("-o"),
                                 shared_object.string(), source.string()})
    argv.push_back(arg);
  Step build = run_step(argv, view, options, nullptr);
  const ProcessResult& r = build.process;
  result.command = build.command;
  result.seconds += r.seconds;
  result.timed_out = r.timed_out;
  if (!build.infra_error.empty()) {
    result.infra_error = build.infra_error;
    return result;
  }
  result.ok = r.ok() && fs::exists(shared_object);
  result.ptx = find_kept_ptx(keep_dir, source.stem().string());
  finish_log(r);
  if (r.timed_out) {
    prepend(result.diagnostics, {"", 0, 0, "fatal",
                                 "nvcc did not finish within the build time limit of " +
                                     std::to_string(options.timeout.count()) + " s and was stopped",
                                 "timeout"});
  } else if (!result.ok && !has_error(result.diagnostics)) {
    const std::string what = r.ok() ? "nvcc succeeded but wrote no candidate.so"
                                    : "nvcc failed (" + r.describe() + ") without a recognizable error message";
    prepend(result.diagnostics, {"", 0, 0, "error", what + "; see the build log", "nvcc"});
  }
  if (result.ok) result.shared_object = shared_object;
  return result;
}

}  // namespace ptxbench
