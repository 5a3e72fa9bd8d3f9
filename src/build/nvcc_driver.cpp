#include "build/nvcc_driver.h"

#include <algorithm>

#include "core/error.h"
#include "core/subprocess.h"

namespace ptxbench {
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
std::filesystem::path find_kept_ptx(const std::filesystem::path& keep_dir, const std::string& stem) {
  std::filesystem::path exact = keep_dir / (stem + ".ptx");
  if (std::filesystem::exists(exact)) return exact;
  std::vector<std::filesystem::path> derived;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(keep_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(stem + ".") && name.ends_with(".ptx")) derived.push_back(entry.path());
  }
  return derived.size() == 1 ? derived.front() : std::filesystem::path{};
}

// The driver's own finding goes first; the list stays within parse_diagnostics' limit of 50.
void prepend(std::vector<Diagnostic>& diagnostics, Diagnostic d) {
  diagnostics.insert(diagnostics.begin(), std::move(d));
  if (diagnostics.size() > 50) diagnostics.pop_back();
}

bool has_error(const std::vector<Diagnostic>& diagnostics) {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == "error" || d.severity == "fatal"; });
}

}  // namespace

BuildResult build_candidate(const std::filesystem::path& source, const std::filesystem::path& out_dir,
                            const BuildOptions& options) {
  if (!std::filesystem::is_regular_file(source)) throw InputError("candidate source not found: " + source.string());
  const std::filesystem::path nvcc = options.nvcc.empty() ? find_nvcc() : options.nvcc;
  if (nvcc.empty()) fail("nvcc not found: set $PTXBENCH_NVCC, put nvcc on PATH or install CUDA in /usr/local/cuda");

  const std::filesystem::path keep_dir = out_dir / "keep";
  const std::filesystem::path shared_object = out_dir / "candidate.so";
  std::filesystem::remove_all(keep_dir);  // no stale PTX or .so from an earlier build may be picked up
  std::filesystem::remove(shared_object);
  std::filesystem::create_directories(keep_dir);  // nvcc does not create its --keep-dir

  std::vector<std::string> argv{nvcc.string()};
  for (auto& flag : candidate_nvcc_flags(options.arch)) argv.push_back(std::move(flag));
  for (const auto& dir : options.include_dirs) argv.push_back("-I" + dir.string());
  for (const std::string& arg : {std::string("--keep"), std::string("--keep-dir"), keep_dir.string(),
                                 std::string("-o"), shared_object.string(), source.string()})
    argv.push_back(arg);

  ProcessOptions process;
  process.timeout = options.timeout;
  const ProcessResult r = run_process(argv, process);

  BuildResult result;
  result.command = join_command(argv);
  result.seconds = r.seconds;
  result.timed_out = r.timed_out;
  const std::string log = r.out + (r.out.empty() || r.out.ends_with('\n') ? "" : "\n") + r.err;
  result.log = trim_log(log, r.dropped_bytes);
  result.diagnostics = parse_diagnostics(log);
  result.ok = r.ok() && std::filesystem::exists(shared_object);
  if (r.timed_out) {
    prepend(result.diagnostics, {"", 0, 0, "fatal",
                                 "nvcc did not finish within the build time limit of " +
                                     std::to_string(options.timeout.count()) + " s and was stopped"});
  } else if (!result.ok && !has_error(result.diagnostics)) {
    const std::string what = r.ok() ? "nvcc succeeded but wrote no " + shared_object.string()
                                    : "nvcc failed (" + r.describe() + ") without a recognizable error message";
    prepend(result.diagnostics, {"", 0, 0, "error", what + "; see the build log"});
  }
  if (result.ok) result.shared_object = shared_object;
  result.ptx = find_kept_ptx(keep_dir, source.stem().string());
  return result;
}

}  // namespace ptxbench
