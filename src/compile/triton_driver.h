// Builds a Triton candidate without a GPU: in the sandbox, triton_track/'s ptxbench_triton scans the
// candidate's Python (imports, harness internals, dynamic code: nothing runs), then, if that is
// clean, compiles every kernel its entry launches for sm_90a / sm_100a through a compile-only
// Triton driver (the entry called once per benchmark shape with buffers of that shape: no GPU,
// nothing launched), leaving one cubin per compiled kernel for the SASS checks.
// Triton's compile cache is a folder of this build's own (TRITON_CACHE_DIR), so one candidate's
// compiled kernels never stand in for another's.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "compile/nvcc_driver.h"
#include "core/json.h"

namespace ptxbench {

// Where the Triton tools are: the package folder (triton_track/, holding ptxbench_triton) and the
// interpreter that has Triton. $PTXBENCH_TRITON_ROOT, else triton_track/ beside the problems root;
// $PTXBENCH_TRITON_PYTHON, else ROOT/.venv/bin/python (triton_track/setup.sh makes it).
struct TritonToolchain {
  std::filesystem::path root;
  std::filesystem::path python;
  std::vector<std::filesystem::path> python_prefixes;  // what the interpreter reads (sandbox view)
  // For the GPU worker, which embeds this interpreter (src/runner/triton/python_library.h): its
  // shared library (empty, with library_error, when it has none), its prefix, and its sys.path.
  std::filesystem::path python_library;
  std::string library_error;
  std::string python_home;
  std::vector<std::string> python_path;
  std::string triton_version;
  std::string error;  // empty when usable; else what is missing and how to install it
  bool usable() const { return error.empty(); }
  json to_json() const;
};

// Looked up once per (problems root, environment); cached.
const TritonToolchain& find_triton_toolchain(const std::filesystem::path& problems_root);

struct TritonBuildOptions {
  std::string arch = "sm_90a";
  std::string entry;                    // e.g. ptxbench_gemm
  std::vector<std::string> parameters;  // the entry's parameter names in order, "stream" last
  // One entry call per shape: {"arguments": problems/triton_abi.h arguments_json(), "scalars":
  // scalar_values()}.
  json calls = json::array();
  std::string display_name;  // the candidate's name in diagnostics; empty: its file name
  std::chrono::seconds timeout{180};
  bool sandbox = true;
  // Set: also build the launchers Triton needs on the GPU into the cache (ptxbench_triton/launchers.py),
  // linked against this folder's libcuda.so.1; the manifest then says the ptxas version.
  std::filesystem::path launchers_libcuda_dir;
  unsigned long long memory_limit = 16ULL << 30;  // RLIMIT_AS: LLVM in Python reserves more than nvcc
};

struct TritonBuildResult {
  bool ok = false;
  bool timed_out = false;
  double seconds = 0;
  std::string command;                  // the compile step as run (the scan's is in `scan`)
  std::string log;                      // the tools' stderr, trimmed, host paths withheld
  std::vector<Diagnostic> diagnostics;  // tool "python" (syntax) or "triton"
  std::vector<std::string> forbidden;   // the scan's findings, one line each
  json findings = json::array();        // {rule, line, column, message}
  json scan = json::object();           // the scan's JSON (kernels, entry)
  json manifest = json::object();       // the compile step's manifest.json
  std::string infra_error;              // the tools could not be run (not the candidate's fault)
  json sandbox = json::object();
  std::vector<std::filesystem::path> cubins;
  std::vector<std::filesystem::path> ptx;
  std::filesystem::path cache;  // TRITON_CACHE_DIR of this build
};

TritonBuildResult build_triton_candidate(const std::filesystem::path& source, const std::filesystem::path& out_dir,
                                         const TritonToolchain& toolchain, const TritonBuildOptions& options);

}  // namespace ptxbench
