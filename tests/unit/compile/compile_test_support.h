// Helpers shared by the build-stage tests: a scratch directory and small host-compiled objects.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compile/tool_paths.h"
#include "core/subprocess.h"
#include "support/temp_dir.h"

namespace ptxbench::testing {

// A scratch directory per test (tests/support/temp_dir.h).
class TempDir : public test::TempDir {
 public:
  TempDir() : test::TempDir("ptxbench-build-test") {}
};

inline std::filesystem::path write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::filesystem::path host_compiler() {
  if (auto gxx = find_in_path("g++"); !gxx.empty()) return gxx;
  return find_in_path("c++");
}

// Compiles C++ `source` into `dir/name` as a shared object; undefined symbols stay imports.
// An empty path (with a test failure recorded) when the compiler rejects it.
inline std::filesystem::path build_host_so(const std::filesystem::path& dir, const std::string& name,
                                           const std::string& source, std::vector<std::string> extra = {}) {
  const auto cpp = write_file(dir / (name + ".cpp"), source);
  const auto so = dir / (name + ".so");
  std::vector<std::string> argv{
      host_compiler().string(), "-std=c++20", "-O2", "-shared", "-fPIC", "-o", so.string(), cpp.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const ProcessResult r = run_process(argv);
  EXPECT_TRUE(r.ok()) << join_command(argv) << "\n" << r.err;
  return r.ok() ? so : std::filesystem::path{};
}

}  // namespace ptxbench::testing
