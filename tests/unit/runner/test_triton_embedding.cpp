// The worker's side of Triton candidates that runs without a GPU: the embedded interpreter
// (runner/triton/python_library.h) loaded from the Triton toolchain's libpython, and the shim that
// stands for the candidate's shared object (compile/triton_shim.h). Each test runs in its own
// process (gtest_discover_tests), so each may start the interpreter once.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>

#include "compile/triton_driver.h"
#include "compile/triton_shim.h"
#include "core/error.h"
#include "runner/triton/python_library.h"
#include "support/temp_dir.h"

namespace ptxbench {
namespace {
namespace fs = std::filesystem;

fs::path repo() { return PTXBENCH_SOURCE_DIR; }

// The toolchain's interpreter, or a skip saying why there is none.
#define REQUIRE_PYTHON_LIBRARY(tc)                                                               \
  const TritonToolchain& tc = find_triton_toolchain(repo() / "problems");                        \
  if (!tc.usable()) GTEST_SKIP() << "no Triton toolchain (triton_track/setup.sh): " << tc.error; \
  if (!tc.library_error.empty()) GTEST_SKIP() << tc.library_error

// One interpreter per process: every test of it shares this one, whose sys.path has a module of
// the tests' own first and the Triton tools' folder next.
PythonLibrary& python(const TritonToolchain& tc) {
  static test::TempDir dir("ptxbench-embed");
  static PythonLibrary* py = [&] {
    std::ofstream(dir.path() / "probe_module.py") << "import sys\n"
                                                     "def total(values):\n"
                                                     "    s = sum(values)\n"
                                                     "    return None if s == 6 else 'sum %d' % s\n"
                                                     "def where(_):\n"
                                                     "    return sys.prefix\n"
                                                     "def pair(a, b):\n"
                                                     "    raise ValueError('pair %d %d' % (a, b))\n";
    std::vector<std::string> path = {dir.path().string(), tc.root.string()};
    path.insert(path.end(), tc.python_path.begin(), tc.python_path.end());
    return new PythonLibrary(tc.python_library, tc.python_home, path);
  }();
  return *py;
}

TEST(TritonEmbedding, TheToolchainsLibraryRunsPythonInThisProcess) {
  REQUIRE_PYTHON_LIBRARY(tc);
  auto& py = python(tc);
  auto* total = py.function("probe_module", "total");
  const unsigned long long six[] = {1, 2, 3}, big[] = {~0ull, 1};
  EXPECT_EQ(py.call_integers(total, six, 3), "");
  EXPECT_EQ(py.call_integers(total, big, 2), "sum 18446744073709551616") << "unsigned 64-bit values arrive whole";
  EXPECT_EQ(py.call_text(py.function("probe_module", "where"), ""), tc.python_home) << "PYTHONHOME is the toolchain's";
  try {
    py.call_two(py.function("probe_module", "pair"), 4, 5);
    ADD_FAILURE() << "an exception in Python must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pair 4 5"), std::string::npos) << e.what();
  }
  try {
    py.function("no_such_module_here", "f");
    ADD_FAILURE() << "a missing module must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_module_here"), std::string::npos) << e.what();
  }
  EXPECT_THROW(py.function("probe_module", "absent"), Error);
}

TEST(TritonEmbedding, TheWorkersModuleImportsWithTritonFromTheToolchainsPath) {
  REQUIRE_PYTHON_LIBRARY(tc);
  auto& py = python(tc);
  // The functions the session binds (triton_session.cpp); importing the module imports nothing of
  // Triton's GPU side yet, so this runs without a GPU.
  for (const char* f : {"load", "warm", "call", "set_scratch"})
    EXPECT_NO_THROW(py.function("ptxbench_triton.worker_side", f)) << f;
  // A configuration without its keys is the harness's error, told as such.
  const std::string loaded = py.call_text(py.function("ptxbench_triton.worker_side", "load"), "{}");
  EXPECT_EQ(loaded.rfind("harness: ", 0), 0u) << loaded;
}

TEST(TritonEmbedding, ASecondInterpreterInOneProcessIsRefused) {
  REQUIRE_PYTHON_LIBRARY(tc);
  python(tc);
  EXPECT_THROW(PythonLibrary(tc.python_library, tc.python_home, tc.python_path), Error);
}

TEST(TritonEmbedding, ALibraryThatIsNotPythonIsAClearError) {
  test::TempDir d("ptxbench-embed");
  try {
    PythonLibrary py(d.path() / "libpython-missing.so", "/usr", {});
    ADD_FAILURE() << "must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("libpython-missing.so"), std::string::npos) << e.what();
  }
}

TEST(TritonShim, DefinesTheProblemsEntryForEveryProblem) {
  test::TempDir d("ptxbench-shim");
  for (const auto& entry : fs::directory_iterator(repo() / "problems")) {
    if (!fs::exists(entry.path() / "interface.h") || !fs::exists(entry.path() / "triton" / "abi.toml")) continue;
    const std::string problem = entry.path().filename().string();
    SCOPED_TRACE(problem);
    std::ifstream in(entry.path() / "problem.toml");
    std::string line, name;
    while (std::getline(in, line))
      if (line.rfind("entry", 0) == 0) name = line.substr(line.find('"') + 1, line.rfind('"') - line.find('"') - 1);
    ASSERT_FALSE(name.empty()) << "no entry = \"...\" line in problem.toml";
    const fs::path so = d.path() / (problem + ".so");
    const std::string error = build_triton_shim(entry.path(), name, so);
    ASSERT_EQ(error, "");
    // The callback stays unresolved until the worker (which defines it) loads the shim.
    void* h = dlopen(so.c_str(), RTLD_LAZY | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    EXPECT_NE(dlsym(h, name.c_str()), nullptr) << name;
    dlclose(h);
  }
}

TEST(TritonShim, ForwardsEveryArgumentAndTheStreamInOrder) {
  const std::string src = triton_shim_source(
      "ptxbench_gemm", {{"const __nv_bfloat16*", "A"}, {"int", "M"}, {"size_t", "bytes"}, {"cudaStream_t", "stream"}});
  const auto a = src.find("A"), m = src.find("M", a), b = src.find("bytes", m), s = src.find("stream", b);
  EXPECT_NE(src.find("ptxbench_triton_call"), std::string::npos) << src;
  EXPECT_TRUE(a != std::string::npos && m != std::string::npos && b != std::string::npos && s != std::string::npos)
      << src;
}

}  // namespace
}  // namespace ptxbench
