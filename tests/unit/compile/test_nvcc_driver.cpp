#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "compile/nvcc_driver.h"
#include "compile_test_support.h"
#include "core/error.h"

namespace ptxbench {
namespace {

using testing::TempDir;
using testing::write_file;

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string describe(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds)
    s += d.severity + " " + d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.message +
         "\n";
  return s;
}

// ---- flags ------------------------------------------------------------------------------------

TEST(NvccFlags, HopperAndBlackwellAreExact) {
  const std::vector<std::string> hopper{"-std=c++17", "-O3",     "-shared", "-Xcompiler",
                                        "-fPIC",      "-cudart", "shared",  "-gencode=arch=compute_90a,code=sm_90a",
                                        "-lineinfo",  "-lcuda"};
  EXPECT_EQ(candidate_nvcc_flags("sm_90a"), hopper);
  const auto blackwell = candidate_nvcc_flags("sm_100a");
  EXPECT_TRUE(contains(blackwell, "-gencode=arch=compute_100a,code=sm_100a"));
  EXPECT_FALSE(contains(blackwell, "-gencode=arch=compute_90a,code=sm_90a"));
}

TEST(NvccFlags, UnknownArchIsAnInputError) {
  EXPECT_THROW(candidate_nvcc_flags("sm_80"), InputError);
  EXPECT_THROW(candidate_nvcc_flags(""), InputError);
}

// ---- parse_diagnostics on canned compiler output ------------------------------------------------

TEST(ParseDiagnostics, FrontEndErrorWithLocation) {
  const auto ds = parse_diagnostics(
      "cand.cu(12): error: identifier \"foo\" is undefined\n"
      "    x[0] = foo;\n"
      "           ^\n\n"
      "1 error detected in the compilation of \"cand.cu\".\n");
  ASSERT_EQ(ds.size(), 1u) << describe(ds);
  EXPECT_EQ(ds[0].file, "cand.cu");
  EXPECT_EQ(ds[0].line, 12);
  EXPECT_EQ(ds[0].column, 0);
  EXPECT_EQ(ds[0].severity, "error");
  EXPECT_EQ(ds[0].message, "identifier \"foo\" is undefined");
}

TEST(ParseDiagnostics, FrontEndNumberedErrorAndWarning) {
  const auto ds = parse_diagnostics(
      "/tmp/a (1)/cand.cu(3): warning #177-D: variable \"q\" was declared but never referenced\n"
      "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
      "/tmp/a (1)/cand.cu(7): error #20: identifier \"bar\" is undefined\n"
      "cand.cu(9): catastrophic error: cannot open source file \"missing.h\"\n");
  ASSERT_EQ(ds.size(), 3u) << describe(ds);
  EXPECT_EQ(ds[0].severity, "error");  // errors come before warnings
  EXPECT_EQ(ds[0].file, "/tmp/a (1)/cand.cu");
  EXPECT_EQ(ds[0].line, 7);
  EXPECT_EQ(ds[0].message, "identifier \"bar\" is undefined");
  EXPECT_EQ(ds[1].severity, "fatal");
  EXPECT_EQ(ds[1].line, 9);
  EXPECT_EQ(ds[2].severity, "warning");
  EXPECT_EQ(ds[2].line, 3);
  EXPECT_EQ(ds[2].message, "variable \"q\" was declared but never referenced");
}

TEST(ParseDiagnostics, HostCompilerLines) {
  const auto ds = parse_diagnostics(
      "In file included from cand.cu:2:\n"
      "cand.cu:12:5: error: 'foo' was not declared in this scope\n"
      "   12 |     foo();\n"
      "      |     ^~~\n"
      "cand.cu:1:10: fatal error: nonexist.h: No such file or directory\n"
      "cand.cu:4:2: warning: #warning hi [-Wcpp]\n"
      "cand.cu:12:5: note: suggested alternative: 'for'\n");
  ASSERT_EQ(ds.size(), 3u) << describe(ds);
  EXPECT_EQ(ds[0].file, "cand.cu");
  EXPECT_EQ(ds[0].line, 12);
  EXPECT_EQ(ds[0].column, 5);
  EXPECT_EQ(ds[0].severity, "error");
  EXPECT_EQ(ds[0].message, "'foo' was not declared in this scope");
  EXPECT_EQ(ds[1].severity, "fatal");
  EXPECT_EQ(ds[1].message, "nonexist.h: No such file or directory");
  EXPECT_EQ(ds[2].severity, "warning");
}

TEST(ParseDiagnostics, PtxasLines) {
  const auto ds = parse_diagnostics(
      "ptxas /tmp/x.ptx, line 33; error   : Unknown modifier '.instr'\n"
      "ptxas warning : Registers are spilled to local memory in function 'k', 8 bytes spill stores\n"
      "ptxas error   : Entry function 'k' uses too much shared data (0x30000 bytes, 0xc000 max)\n"
      "ptxas info    : Used 32 registers\n"
      "ptxas fatal   : Ptx assembly aborted due to errors\n");
  ASSERT_EQ(ds.size(), 4u) << describe(ds);
  EXPECT_EQ(ds[0].file, "/tmp/x.ptx");
  EXPECT_EQ(ds[0].line, 33);
  EXPECT_EQ(ds[0].severity, "error");
  EXPECT_EQ(ds[0].message, "Unknown modifier '.instr'");
  EXPECT_EQ(ds[1].message, "ptxas: Entry function 'k' uses too much shared data (0x30000 bytes, 0xc000 max)");
  EXPECT_EQ(ds[2].severity, "fatal");
  EXPECT_EQ(ds[2].message, "ptxas: Ptx assembly aborted due to errors");
  EXPECT_EQ(ds[3].severity, "warning");
  for (const auto& d : ds)
    EXPECT_EQ(d.tool, "ptxas") << d.message;  // a compile error's kind (fixit_core/error_class.h)
}

TEST(ParseDiagnostics, ToolAndLinkerLinesWithoutLocation) {
  const auto ds = parse_diagnostics(
      "nvcc fatal   : Unsupported gpu architecture 'compute_77'\n"
      "/usr/bin/ld: /tmp/tmpxft_1.o: in function `main':\n"
      "tmpxft_1.cudafe1.cpp:(.text+0x33): undefined reference to `undefined_thing()'\n"
      "/usr/bin/ld: cannot find -lfoo: No such file or directory\n"
      "collect2: error: ld returned 1 exit status\n"
      "error: something went wrong\n");
  ASSERT_EQ(ds.size(), 5u) << describe(ds);
  EXPECT_EQ(ds[0].severity, "fatal");
  EXPECT_EQ(ds[0].message, "nvcc: Unsupported gpu architecture 'compute_77'");
  EXPECT_EQ(ds[1].message, "ld: undefined reference to `undefined_thing()'");
  EXPECT_EQ(ds[2].message, "ld: cannot find -lfoo: No such file or directory");
  EXPECT_EQ(ds[3].message, "collect2: ld returned 1 exit status");
  EXPECT_EQ(ds[4].message, "something went wrong");
  for (const auto& d : ds) EXPECT_TRUE(d.file.empty() && d.line == 0) << d.message;
  EXPECT_EQ(ds[0].tool, "nvcc");
  EXPECT_EQ(ds[1].tool, "linker");
  EXPECT_EQ(ds[2].tool, "linker");
  EXPECT_EQ(ds[3].tool, "linker");
  EXPECT_EQ(ds[4].tool, "nvcc");
}

TEST(ParseDiagnostics, StripsAnsiColourCodes) {
  const auto ds = parse_diagnostics(
      "\x1b[01m\x1b[Kcand.cu:3:7:\x1b[m\x1b[K \x1b[01;31m\x1b[Kerror: \x1b[m\x1b[K'x' was not declared\r\n");
  ASSERT_EQ(ds.size(), 1u) << describe(ds);
  EXPECT_EQ(ds[0].file, "cand.cu");
  EXPECT_EQ(ds[0].line, 3);
  EXPECT_EQ(ds[0].column, 7);
  EXPECT_EQ(ds[0].message, "'x' was not declared");
}

TEST(ParseDiagnostics, ErrorsFirstDeduplicatedAndCappedAtFifty) {
  std::string log;
  for (int i = 1; i <= 60; ++i) log += "c.cu(" + std::to_string(i) + "): warning #177-D: unused\n";
  log += "c.cu(99): error: late error\nc.cu(99): error: late error\n";
  const auto ds = parse_diagnostics(log);
  ASSERT_EQ(ds.size(), 50u);
  EXPECT_EQ(ds[0].severity, "error");
  EXPECT_EQ(ds[0].line, 99);
  EXPECT_EQ(ds[1].severity, "warning");
  EXPECT_EQ(ds[1].line, 1);
}

TEST(ParseDiagnostics, IgnoresOrdinaryOutput) {
  EXPECT_TRUE(parse_diagnostics("").empty());
  EXPECT_TRUE(parse_diagnostics("ptxas info    : Compiling entry function 'k'\n"
                                "  int error = 0;\n"
                                "1 error detected in the compilation of \"c.cu\".\n")
                  .empty());
}

// ---- build_candidate with a stand-in nvcc (no CUDA needed) ---------------------------------------

std::filesystem::path fake_nvcc(const std::filesystem::path& dir, const std::string& body) {
  const auto script = write_file(dir / "fake-nvcc", "#!/bin/sh\n" + body + "\n");
  chmod(script.c_str(), 0755);
  return script;
}

TEST(BuildCandidate, MissingSourceIsAnInputError) {
  TempDir tmp;
  BuildOptions options;
  options.nvcc = "/bin/true";
  EXPECT_THROW(build_candidate(tmp.path() / "absent.cu", tmp.path() / "out", options), InputError);
}

TEST(BuildCandidate, TimeoutIsAFailedBuildThatSaysSo) {
  TempDir tmp;
  BuildOptions options;
  options.nvcc = fake_nvcc(tmp.path(), "sleep 30");
  options.timeout = std::chrono::seconds(1);
  const auto r = build_candidate(write_file(tmp.path() / "c.cu", "\n"), tmp.path() / "out", options);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 10);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].severity, "fatal");
  EXPECT_NE(r.diagnostics[0].message.find("time limit of 1 s"), std::string::npos) << r.diagnostics[0].message;
}

TEST(BuildCandidate, LongLogIsTrimmedAndSaysHowMuch) {
  TempDir tmp;
  BuildOptions options;
  options.nvcc = fake_nvcc(tmp.path(),
                           "i=0; while [ $i -lt 1000 ]; do echo \"c.cu($i): error: e$i\" >&2; "
                           "i=$((i+1)); done; exit 1");
  const auto r = build_candidate(write_file(tmp.path() / "c.cu", "\n"), tmp.path() / "out", options);
  EXPECT_FALSE(r.ok);
  EXPECT_LE(r.log.size(), 16u * 1024 + 100);
  EXPECT_NE(r.log.find("c.cu(0): error: e0\n"), std::string::npos);
  EXPECT_EQ(r.log.find("c.cu(200): error"), std::string::npos);
  EXPECT_NE(r.log.find("[log trimmed: 800 more lines"), std::string::npos) << r.log.substr(r.log.size() - 200);
  EXPECT_EQ(r.diagnostics.size(), 50u);  // parsed from the whole log, then capped
}

TEST(BuildCandidate, SilentFailureStillGetsAnErrorDiagnostic) {
  TempDir tmp;
  BuildOptions options;
  options.nvcc = fake_nvcc(tmp.path(), "exit 3");
  const auto r = build_candidate(write_file(tmp.path() / "c.cu", "\n"), tmp.path() / "out", options);
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, "error");
  EXPECT_NE(r.diagnostics[0].message.find("exit 3"), std::string::npos) << r.diagnostics[0].message;
}

// ---- build_candidate with the real nvcc -----------------------------------------------------------

class RealNvcc : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_nvcc().empty()) GTEST_SKIP() << "nvcc not found ($PTXBENCH_NVCC, PATH, /usr/local/cuda/bin)";
  }
  TempDir tmp_;
};

TEST_F(RealNvcc, CompileErrorNamesFileLineAndMessage) {
  const auto source = write_file(tmp_.path() / "broken.cu",
                                 "#include <cuda_runtime.h>\n"
                                 "\n"
                                 "__global__ void k(float* x) { x[0] = foo; }\n");
  const auto r = build_candidate(source, tmp_.path() / "out", BuildOptions{});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.shared_object.empty());
  EXPECT_NE(r.log.find("identifier \"foo\" is undefined"), std::string::npos) << r.log;
  ASSERT_FALSE(r.diagnostics.empty()) << r.log;
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, "error");
  EXPECT_EQ(std::filesystem::path(d.file).filename(), "broken.cu") << d.file;
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.message, "identifier \"foo\" is undefined");
}

TEST_F(RealNvcc, PtxasErrorFromInlineAsmIsCaptured) {
  const auto source =
      write_file(tmp_.path() / "badasm.cu",
                 "__global__ void k(float* x) { asm volatile(\"bogus.op.f32 %0;\" :: \"f\"(x[0])); }\n");
  const auto r = build_candidate(source, tmp_.path() / "out", BuildOptions{});
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty()) << r.log;
  EXPECT_EQ(r.diagnostics[0].severity, "error");
  // Mapped back from the PTX line to the candidate's (issue 12): the model never sees the PTX.
  EXPECT_EQ(r.diagnostics[0].file, "badasm.cu") << describe(r.diagnostics);
  EXPECT_EQ(r.diagnostics[0].line, 1) << describe(r.diagnostics);
  EXPECT_NE(r.diagnostics[0].message.find("(PTX line "), std::string::npos) << describe(r.diagnostics);
}

TEST_F(RealNvcc, SuccessfulBuildKeepsPtxAndRecordsTheCommand) {
  const auto include = write_file(tmp_.path() / "inc" / "scale.h", "#pragma once\nconstexpr float kScale = 2.0f;\n");
  const auto source = write_file(tmp_.path() / "good.cu",
                                 "#include \"scale.h\"\n"
                                 "__global__ void k(float* x) { x[threadIdx.x] *= kScale; }\n"
                                 "extern \"C\" int ptxbench_scale(float* x) { k<<<1, 32>>>(x); return 0; }\n");
  BuildOptions options;
  options.include_dirs = {include.parent_path()};
  const auto out = tmp_.path() / "out";
  const auto r = build_candidate(source, out, options);
  ASSERT_TRUE(r.ok) << r.command << "\n" << r.log;
  EXPECT_EQ(r.shared_object, out / "candidate.so");
  EXPECT_TRUE(std::filesystem::exists(r.shared_object));
  EXPECT_EQ(r.ptx, out / "keep" / "good.ptx");
  EXPECT_NE(testing::read_file(r.ptx).find(".target sm_90a"), std::string::npos);
  EXPECT_NE(r.command.find(" -gencode=arch=compute_90a,code=sm_90a -lineinfo -lcuda -I" +
                           include.parent_path().string() + " --keep --keep-dir " + (out / "keep").string() + " -o " +
                           (out / "candidate.so").string() + " " + source.string()),
            std::string::npos)
      << r.command;
  EXPECT_GT(r.seconds, 0);
}

TEST_F(RealNvcc, GemmNaiveReferenceBuilds) {
  const auto problem = std::filesystem::path(__FILE__).parent_path() / "../../../problems/gemm";
  const auto naive = problem / "reference" / "naive.cu";
  if (!std::filesystem::exists(naive)) GTEST_SKIP() << naive << " is not in this checkout";
  BuildOptions options;
  options.include_dirs = {problem};
  const auto r = build_candidate(naive, tmp_.path() / "out", options);
  EXPECT_TRUE(r.ok) << r.command << "\n" << r.log;
  EXPECT_EQ(r.ptx.filename(), "naive.ptx");
  for (const auto& d : r.diagnostics) EXPECT_NE(d.severity, "error") << d.message;
}

}  // namespace
}  // namespace ptxbench
