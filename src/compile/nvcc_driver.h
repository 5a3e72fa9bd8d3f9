// Builds a candidate .cu into a shared object with nvcc under a time limit, in a sandbox
// (src/sandbox: a read-only view of the toolchain, the candidate's folder and its include
// folders, a private scratch folder, no network, memory/file/CPU limits, a scrubbed environment),
// keeping the PTX and the compiler's diagnostics (trimmed, structured, and with no host path or
// outside file's content in them). Before compiling, `nvcc -M` lists every file the build would
// read; one outside the allowed folders, or a library's header, ends the build as forbidden.
#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;        // 0 when the compiler gave none
  std::string severity;  // error, warning, remark, fatal
  std::string message;
  // Which program said it: cudafe (the CUDA front end), host_compiler, ptxas, linker, or the tool's
  // own name (nvcc, nvlink, fatbinary, cicc); "options" for the candidate's opt-in line. A
  // compile error's kind (fixit_core/error_class.h) is this and the message's template.
  std::string tool;
};

struct BuildOptions {
  std::string arch = "sm_90a";                      // sm_90a or sm_100a
  std::vector<std::filesystem::path> include_dirs;  // on the include path: interface.h's folder, the knowledge pack, -I
  // Readable but not on the include path, for the candidate's relative includes. Empty: the
  // candidate's own folder.
  std::vector<std::filesystem::path> readable;
  std::vector<std::string> extra_flags;  // the candidate's opt-in (compile/candidate_options.h)
  std::chrono::seconds timeout{180};
  std::filesystem::path nvcc;  // empty: find_nvcc()
  std::string display_name;    // the candidate's name in logs; empty: its file name
  bool sandbox = true;
  unsigned long long memory_limit = 8ULL << 30;  // RLIMIT_AS of nvcc and every tool it runs
};

struct BuildResult {
  bool ok = false;
  bool timed_out = false;
  double seconds = 0;
  std::string command;                  // the exact nvcc command line run (paths as the sandbox sees them)
  std::string log;                      // compiler output, sanitized and trimmed to a readable size
  std::vector<Diagnostic> diagnostics;  // errors first, at most 50; ptxas lines mapped to the source
  std::vector<std::string> forbidden;   // files the build may not read (the dependency check)
  std::string infra_error;              // the sandbox or nvcc could not be run at all (not the candidate's fault)
  json sandbox = json::object();        // the mechanisms that confined nvcc
  std::filesystem::path shared_object;  // valid when ok
  std::filesystem::path ptx;            // the kept PTX (empty if none was produced)
};

// The nvcc flags every candidate is built with, pinned in one place (nvcc_flags.cpp), with the
// candidate's allowlisted opt-ins (-std=c++20 replaces -std=c++17).
std::vector<std::string> candidate_nvcc_flags(const std::string& arch, const std::vector<std::string>& extra = {});

std::filesystem::path find_nvcc();  // $PTXBENCH_NVCC, PATH, /usr/local/cuda/bin/nvcc; empty when none

// Throws InputError when the source does not exist or cannot be read; a failed compile is a
// result, not a throw.
BuildResult build_candidate(const std::filesystem::path& source, const std::filesystem::path& out_dir,
                            const BuildOptions& options);

// Parses nvcc / cudafe / ptxas / host compiler output into diagnostics.
std::vector<Diagnostic> parse_diagnostics(const std::string& log);

}  // namespace ptxbench
