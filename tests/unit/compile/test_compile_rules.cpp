// Issue 12: the rules of the build stage, on hand-made inputs: the import allowlist (each evasion
// that used to pass the static stage), the dependency check (macro, nested and outside includes),
// what of a compiler log may reach a model, the nvcc -M list, ptxas lines mapped to the
// candidate's, and the candidate's nvcc opt-ins.
#include <gtest/gtest.h>

#include "compile/candidate_options.h"
#include "compile/import_rules.h"
#include "compile/include_check.h"
#include "compile/log_sanitizer.h"
#include "compile/make_deps.h"
#include "compile/ptx_lines.h"

namespace ptxbench {
namespace {

TEST(ImportAllowlist, WhatKernelsHostCodeNeedsIsAllowed) {
  for (const char* s : {"cudaMalloc",
                        "cudaLaunchKernelExC",
                        "cudaMallocAsync",
                        "cudaGraphLaunch",
                        "cudaStreamBeginCapture",
                        "cudaGetDriverEntryPoint",
                        "__cudaRegisterFatBinary",
                        "cuTensorMapEncodeTiled",
                        "cuGetProcAddress_v2",
                        "malloc",
                        "memcpy",
                        "printf",
                        "fprintf",
                        "stderr",
                        "sqrtf",
                        "expf",
                        "__cxa_guard_acquire",
                        "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",
                        "_Znwm",
                        "_ZdlPvm",
                        "_ZSt4cout",
                        "_ZSt20__throw_length_errorPKc",
                        "__gxx_personality_v0",
                        "_Unwind_Resume",
                        "__stack_chk_fail"})
    EXPECT_EQ(import_reason(s, false), "") << s;
  EXPECT_EQ(import_reason("__gmon_start__", true), "");
}

TEST(ImportAllowlist, EveryEvasionThatPassedTheDenylistIsForbidden) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"getenv", "reading the environment"},
      {"socket", "network access"},
      {"connect", "network access"},
      {"setsid", "starting processes"},
      {"_exit", "ending the process"},
      {"dl_iterate_phdr", "walking the loaded objects"},
      {"_r_debug", "walking the loaded objects"},
      // std::filesystem::remove_all(std::filesystem::path const&)
      {"_ZNSt10filesystem10remove_allERKNS_7__cxx114pathE", "the file system"},
      // std::basic_ofstream<char>::basic_ofstream(char const*, std::_Ios_Openmode)
      {"_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", "file streams"},
      {"sigaltstack", "not on the allowlist"},
      {"prctl", "not on the allowlist"},
  };
  for (const auto& [symbol, why] : cases) {
    const std::string r = import_reason(symbol, false);
    EXPECT_NE(r.find(why), std::string::npos) << symbol << ": " << r;
  }
  EXPECT_NE(import_reason("cudaStreamCreate", false).find("creating streams"), std::string::npos);
  EXPECT_NE(import_reason("cuModuleLoadData", false).find("loading code"), std::string::npos);
  EXPECT_NE(import_reason("cublasLtMatmul", false).find("cuBLASLt"), std::string::npos);
}

// Issue 30: the driver API by import obeys the allowlist an entry-point lookup obeys at run time.
TEST(ImportAllowlist, DriverCallsOffTheEntryPointAllowlistAreForbiddenByImportToo) {
  for (const char* s : {"cuStreamWaitEvent", "cuMemPrefetchAsync_v2", "cuCtxSynchronize", "cuMemAllocManaged",
                        "cuEventRecord", "cuGraphLaunch", "cuMemcpyDtoDAsync_v2_ptsz", "cuGetExportTable"}) {
    const std::string r = import_reason(s, false);
    EXPECT_NE(r.find("the driver API is limited"), std::string::npos) << s << ": " << r;
  }
  EXPECT_NE(import_reason("cuStreamCreate", false).find("creating streams"), std::string::npos);
  EXPECT_NE(import_reason("cuMemAdvise_v2", false).find("advising managed memory"), std::string::npos);
  EXPECT_NE(import_reason("cudaMemAdvise", false).find("advising managed memory"), std::string::npos);
  EXPECT_NE(import_reason("cuStreamDestroy_v2", false).find("destroying streams"), std::string::npos);
  for (const char* s : {"cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuTensorMapEncodeTiled", "cuGetErrorString",
                        "cuPointerGetAttribute", "cuGetProcAddress_v2"})
    EXPECT_EQ(import_reason(s, false), "") << s;
  // Finding allocations by address range (the device-memory scan of the secrets attacks) is off the list.
  EXPECT_NE(import_reason("cuMemGetAddressRange_v2", false).find("the driver API is limited"), std::string::npos);
  // The runtime API stays importable: what it does on which stream is judged at run time.
  EXPECT_EQ(import_reason("cudaMemPrefetchAsync", false), "");
}

TEST(MakeDependencies, TargetsContinuationsAndEscapes) {
  const std::string text =
      "candidate.o: /a/candidate.cu /usr/include/stdio.h \\\n  /b/my\\ dir/x.h \\\n /a/candidate.cu\n";
  EXPECT_EQ(parse_make_dependencies(text),
            (std::vector<std::string>{"/a/candidate.cu", "/usr/include/stdio.h", "/b/my dir/x.h"}));
  EXPECT_TRUE(parse_make_dependencies("").empty());
}

TEST(IncludeCheck, OutsideFilesAndLibraryHeadersAreForbiddenHoweverReached) {
  IncludeRoots roots;
  roots.readable = {"/work/cand"};
  roots.include_dirs = {"/build/include"};
  roots.system = {"/usr/local/cuda-13.0", "/usr/include"};
  const auto reasons =
      check_dependencies({"/work/cand/c.cu", "/work/cand/helper.h", "/usr/include/stdio.h", "/etc/passwd",
                          "/usr/local/cuda-13.0/targets/x86_64-linux/include/cublas_v2.h",
                          "/work/cand/third/cute/tensor.hpp", "/usr/include/dlfcn.h", "/build/include/interface.h"},
                         "/work/cand", roots, "/work/cand/c.cu");
  ASSERT_EQ(reasons.size(), 4u) << ::testing::PrintToString(reasons);
  EXPECT_NE(reasons[0].find("includes passwd, a file outside"), std::string::npos) << reasons[0];
  EXPECT_EQ(reasons[0].find("/etc"), std::string::npos) << reasons[0];  // no host path
  EXPECT_NE(reasons[1].find("cuBLAS"), std::string::npos) << reasons[1];
  EXPECT_NE(reasons[2].find("CuTe"), std::string::npos) << reasons[2];
  EXPECT_NE(reasons[3].find("dynamic loading"), std::string::npos) << reasons[3];
}

TEST(LogSanitizer, OutsideFilesAreWithheldAndPathsShownByName) {
  LogView v;
  v.candidate = "/work/cand/k.cu";
  v.display_name = "candidate.cu";
  v.allowed = {"/work/cand", "/usr/include"};
  const std::string log =
      "/work/cand/k.cu(3): error: identifier \"x\" is undefined\n"
      "  x = 1;\n"
      "  ^\n"
      "/etc/passwd(1): error: expected a declaration\n"
      "  root:x:0:0:root:/root:/bin/bash\n"
      "  ^\n"
      "In file included from /work/cand/k.cu:1:\n"
      "/etc/hosts:1:3: error: invalid preprocessing directive #The\n"
      "    1 | # The hosts of this machine: db.internal 10.0.0.7\n"
      "2 errors detected in the compilation of \"/work/cand/k.cu\".\n"
      "a/b and 1/2 stay\n";
  const std::string out = sanitize_compiler_log(log, v);
  EXPECT_NE(out.find("candidate.cu(3): error: identifier \"x\" is undefined\n  x = 1;\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("root:x"), std::string::npos) << out;
  EXPECT_EQ(out.find("db.internal"), std::string::npos) << out;
  EXPECT_EQ(out.find("/work"), std::string::npos) << out;
  EXPECT_NE(out.find("compilation of \"candidate.cu\""), std::string::npos) << out;
  EXPECT_NE(out.find("a/b and 1/2 stay"), std::string::npos) << out;
  EXPECT_NE(out.find("withheld"), std::string::npos) << out;
}

TEST(PtxLines, APtxLineMapsToTheLastLocBeforeIt) {
  // As nvcc writes it: the .file directives after the code.
  const std::string ptx =
      ".version 8.0\n\n\n.loc\t1 10 3\nmov.u32 a, b;\n.loc 2 4 1\nadd.s32 c, d;\n.loc 1 42 5\nbogus.op.f32 %f;\n"
      ".file\t1 \"/work/cand/k.cu\"\n.file 2 \"/usr/include/x.h\"\n";
  auto at = ptx_source_line(ptx, 9);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->file, "/work/cand/k.cu");
  EXPECT_EQ(at->line, 42);
  at = ptx_source_line(ptx, 7);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->file, "/usr/include/x.h");
  EXPECT_FALSE(ptx_source_line(ptx, 3));
}

TEST(CandidateOptions, AShortAllowlistOnTheFirstLine) {
  auto o = parse_candidate_options("// ptxbench-nvcc-options: -std=c++20 --expt-extended-lambda -DNDEBUG\nint x;\n");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.flags, (std::vector<std::string>{"-std=c++20", "--expt-extended-lambda", "-DNDEBUG"}));
  EXPECT_TRUE(parse_candidate_options("int x;\n// ptxbench-nvcc-options: -DNDEBUG\n").flags.empty());
  o = parse_candidate_options("// ptxbench-nvcc-options: -DNDEBUG -Xcompiler -fplugin=evil.so\n");
  EXPECT_TRUE(o.flags.empty());
  EXPECT_NE(o.error.find("line 1: nvcc option '-Xcompiler' is not allowed"), std::string::npos) << o.error;
}

}  // namespace
}  // namespace ptxbench
