// The nvcc command shape per arch and the installed nvcc's version, for prompts and provenance.
#include "judge/toolchain_info.h"

#include <regex>

#include "compile/nvcc_driver.h"
#include "core/subprocess.h"

namespace ptxbench {

std::vector<std::string> candidate_build_flags(const std::string& arch) { return candidate_nvcc_flags(arch); }

std::string candidate_build_line(const std::string& arch) {
  std::string line = "nvcc";
  for (const auto& f : candidate_nvcc_flags(arch)) line += " " + f;
  return line + " -I<problem folder> -I<knowledge pack> -o candidate.so candidate.cu";
}

std::string nvcc_version() {
  const auto nvcc = find_nvcc();
  if (nvcc.empty()) return "none (nvcc not found)";
  ProcessOptions o;
  o.timeout = std::chrono::seconds(30);
  ProcessResult r;
  try {
    r = run_process({nvcc.string(), "--version"}, o);
  } catch (const std::exception& e) {
    return std::string("unknown (") + e.what() + ")";
  }
  if (!r.ok()) return "unknown (" + nvcc.string() + " --version: " + r.describe() + ")";
  std::smatch m;
  static const std::regex release(R"((Cuda compilation tools, release [^\n,]+, V([0-9.]+)))");
  if (std::regex_search(r.out, m, release)) return std::string(m[2]) + " (" + std::string(m[1]) + ")";
  return "unknown (" + nvcc.string() + " --version printed no release line)";
}

}  // namespace ptxbench
