// libFuzzer target: problem.toml loading. Any input either loads or is an InputError (the file,
// line and key path); nothing else may escape, crash or hang.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "problems/problem_spec.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("ptxbench-fuzz-toml-" + std::to_string(getpid())) / "toy";
    fs::create_directories(d);
    return d;
  }();
  {
    std::ofstream out(dir / "problem.toml", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  static const std::map<std::string, std::vector<std::string>> workloads{{"toy", {"none"}}, {"gemm", {"cublaslt"}}};
  try {
    const ptxbench::ProblemSpec p = ptxbench::load_problem(dir, workloads);
    for (const auto& s : p.benchmark_shapes) (void)p.flop_count(s);
    (void)p.to_json().dump();
  } catch (const ptxbench::InputError&) {
  }
  return 0;
}
