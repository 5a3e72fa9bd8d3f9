// Runs cuobjdump on a built candidate and counts its SASS opcodes by family against the target groups.
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "compile/static_checks.h"
#include "compile/tool_paths.h"
#include "core/error.h"
#include "core/subprocess.h"

namespace ptxbench {
namespace {

// PyPI's nvidia-cuda-cuobjdump installs into <site-packages>/nvidia/cu13/bin.
std::filesystem::path pypi_cuobjdump() {
  static const std::filesystem::path found = [] {
    std::filesystem::path python = find_in_path("python3");
    if (python.empty()) return std::filesystem::path{};
    ProcessOptions options;
    options.timeout = std::chrono::seconds(30);
    ProcessResult r =
        run_process({python.string(), "-c",
                     "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13', 'bin', 'cuobjdump'))"},
                    options);
    if (!r.ok()) return std::filesystem::path{};
    std::string path = r.out.substr(0, r.out.find('\n'));
    return is_executable(path) ? std::filesystem::path(path) : std::filesystem::path{};
  }();
  return found;
}

// A SASS line starts with its address comment, e.g. `/*0120*/`; returns the text after it.
bool strip_address(const std::string& line, std::string& rest) {
  size_t pos = line.find_first_not_of(" \t");
  if (pos == std::string::npos || line.compare(pos, 2, "/*") != 0) return false;
  size_t end = pos + 2;
  while (end < line.size() && std::isxdigit(static_cast<unsigned char>(line[end]))) ++end;
  if (end == pos + 2 || line.compare(end, 2, "*/") != 0) return false;
  rest = line.substr(end + 2);
  return true;
}

}  // namespace

std::filesystem::path find_cuobjdump() {
  if (const char* env = std::getenv("PTXBENCH_CUOBJDUMP"); env && *env) return env;
  if (auto in_path = find_in_path("cuobjdump"); !in_path.empty()) return in_path;
  if (std::filesystem::path cuda = "/usr/local/cuda/bin/cuobjdump"; is_executable(cuda)) return cuda;
  return pypi_cuobjdump();
}

OpcodeCounts parse_sass_listing(const std::string& cuobjdump_sass_output) {
  OpcodeCounts counts;
  std::istringstream lines(cuobjdump_sass_output);
  for (std::string line; std::getline(lines, line);) {
    std::string rest;
    if (!strip_address(line, rest)) continue;
    std::istringstream tokens(rest);
    std::string token;
    tokens >> token;
    if (token == "{") tokens >> token;  // dual-issue bundles on older architectures
    if (token.starts_with("@")) tokens >> token;
    token = token.substr(0, token.find_first_of(".;"));
    if (token.empty() || !std::isupper(static_cast<unsigned char>(token[0]))) continue;
    ++counts[token];
  }
  return counts;
}

OpcodeCounts sass_opcode_counts(const std::filesystem::path& object, const std::filesystem::path& cuobjdump) {
  return parse_sass_listing(sass_text(object, cuobjdump));
}

std::string sass_text(const std::filesystem::path& object, const std::filesystem::path& cuobjdump) {
  if (cuobjdump.empty()) fail("cuobjdump not found: set $PTXBENCH_CUOBJDUMP or install the CUDA toolkit");
  ProcessOptions options;
  options.timeout = std::chrono::minutes(2);
  options.max_output_bytes = size_t{256} << 20;  // a large kernel's listing runs to many megabytes
  const std::vector<std::string> argv{cuobjdump.string(), "-sass", object.string()};
  ProcessResult r = run_process(argv, options);
  if (r.ok() && r.dropped_bytes > 0)
    fail("`" + join_command(argv) + "` printed more than 256 MiB; the opcode counts would be incomplete");
  if (r.ok()) return r.out;
  if (r.exited && (r.out + r.err).find("does not contain device code") != std::string::npos) return "";
  fail("`" + join_command(argv) + "` failed (" + r.describe() + "): " + r.err.substr(0, 2000));
}

bool opcode_glob_match(const std::string& glob, const std::string& opcode) {
  // Iterative wildcard match: on a mismatch, let the most recent '*' absorb one more character.
  size_t g = 0, o = 0, star = std::string::npos, star_o = 0;
  while (o < opcode.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      star_o = o;
    } else if (g < glob.size() && glob[g] == opcode[o]) {
      ++g;
      ++o;
    } else if (star != std::string::npos) {
      g = star + 1;
      o = ++star_o;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

OpcodeCounts select_families(const OpcodeCounts& counts, const std::vector<std::vector<std::string>>& groups) {
  OpcodeCounts selected;
  for (const auto& [opcode, count] : counts) {
    if (count <= 0) continue;
    for (const auto& group : groups)
      for (const auto& glob : group)
        if (opcode_glob_match(glob, opcode)) selected[opcode] = count;
  }
  return selected;
}

bool groups_satisfied(const OpcodeCounts& counts, const std::vector<std::vector<std::string>>& groups) {
  for (const auto& group : groups) {
    bool hit = false;
    for (const auto& [opcode, count] : counts)
      for (const auto& glob : group) hit = hit || (count > 0 && opcode_glob_match(glob, opcode));
    if (!hit) return false;
  }
  return true;
}

}  // namespace ptxbench
