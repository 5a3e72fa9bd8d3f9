#include <gtest/gtest.h>

#include <algorithm>

#include "compile/nvcc_driver.h"
#include "compile/static_checks.h"
#include "compile_test_support.h"
#include "core/error.h"

namespace ptxbench {
namespace {

using testing::build_host_so;
using testing::TempDir;
using testing::write_file;

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

bool any_contains(const std::vector<std::string>& reasons, const std::string& needle) {
  return std::any_of(reasons.begin(), reasons.end(),
                     [&](const auto& r) { return r.find(needle) != std::string::npos; });
}

// ---- PTX text ---------------------------------------------------------------------------------

TEST(ScanPtx, CountsInstructionsNotCommentsDirectivesOrStrings) {
  const std::string ptx = R"ptx(
.version 8.7
.target sm_90a
	.file	1 "/tmp/wgmma.mma_async; dir//x.cu"
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .pred 	%p<2>;
	.loc	1 1 0
	wgmma.fence.sync.aligned;
	// wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1}, %rd1, %rd2, p, 1, 1, 0, 0;
	/* cp.async.bulk.tensor.2d.shared::cluster.global [%r1], [%rd1, {%r3, %r3}], [%r4];
	   mbarrier.init.shared.b64 [%r1], 1; */
	.loc	1 2 0
	wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, %rd2, %rd3, p, 1, 1, 0, 0;
	{ .reg .pred p; setp.ne.b32 p, %r5, 0;
	@p wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
		{%f1, %f2, %f3, %f4},
		%rd2, %rd3, p, 1, 1, 0, 0; }
$L__BB0_2:
	@!%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r3, %r3}], [%r4];
$L__BB0_3: mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r4], %r6;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r4], 8192;
	ret;
}
)ptx";
  const auto counts = scan_ptx(ptx, {"wgmma.mma_async", "cp.async.bulk.tensor", "mbarrier", "wgmma", "tcgen05.mma"});
  EXPECT_EQ(counts.at("wgmma.mma_async"), 2);
  EXPECT_EQ(counts.at("cp.async.bulk.tensor"), 1);
  EXPECT_EQ(counts.at("mbarrier"), 2);
  EXPECT_EQ(counts.at("wgmma"), 3);
  EXPECT_EQ(counts.at("tcgen05.mma"), 0);
}

// ---- SASS listing -------------------------------------------------------------------------------

TEST(ParseSassListing, OpcodesWithoutModifiersOrPredicates) {
  const std::string listing = R"sass(
Fatbin elf code:
================
arch = sm_90a
code version = [1,8]
identifier = cand.cu

	code for sm_90a
		Function : gemm_kernel
	.headerflags	@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                    /* 0x00000a00ff017b82 */
                                                                                             /* 0x000fe20000000800 */
        /*00b0*/               @P0 ELECT P1, URZ, PT ;                                       /* 0x00000000003f082f */
        /*00c0*/                   UTMALDG.2D [UR4], [UR8] ;                                 /* 0x00000004080075b4 */
        /*00f0*/               @P0 BRA.U.ANY 0xb0 ;                                          /* 0xfffffffd00ec0947 */
        /*0120*/                   HGMMA.64x128x16.F32.BF16 gdesc[UR4], RZ, !UPT ;           /* 0x00000000041879f0 */
        /*0150*/              @!UP0 HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24, gsb0 ;    /* 0x00000000041879f0 */
        /*01c0*/                   EXIT ;                                                    /* 0x000000000000794d */
        /*01d0*/                   BRA 0x1d0;                                                /* 0xfffffffc00fc7947 */
        /*01e0*/                   NOP;                                                      /* 0x0000000000007918 */
		..........
)sass";
  const OpcodeCounts expected{{"LDC", 1},   {"ELECT", 1}, {"UTMALDG", 1}, {"BRA", 2},
                              {"HGMMA", 2}, {"EXIT", 1},  {"NOP", 1}};
  EXPECT_EQ(parse_sass_listing(listing), expected);
  EXPECT_TRUE(parse_sass_listing("").empty());
}

// ---- opcode families ------------------------------------------------------------------------------

TEST(OpcodeGlob, Matches) {
  EXPECT_TRUE(opcode_glob_match("*GMMA", "HGMMA"));
  EXPECT_TRUE(opcode_glob_match("*GMMA", "GMMA"));
  EXPECT_FALSE(opcode_glob_match("*GMMA", "HGMMAX"));
  EXPECT_TRUE(opcode_glob_match("UTC*", "UTCHMMA"));
  EXPECT_TRUE(opcode_glob_match("UTC*", "UTC"));
  EXPECT_FALSE(opcode_glob_match("UTC*", "UTMALDG"));
  EXPECT_TRUE(opcode_glob_match("UTMALDG", "UTMALDG"));
  EXPECT_FALSE(opcode_glob_match("UTMALDG", "UTMALDGX"));
  EXPECT_TRUE(opcode_glob_match("*MMA*", "UTCQMMA2"));
  EXPECT_TRUE(opcode_glob_match("U*A*G", "UTMALDG"));
  EXPECT_FALSE(opcode_glob_match("U*A*G", "UTMALDGX"));
  EXPECT_TRUE(opcode_glob_match("*", "ANY"));
  EXPECT_FALSE(opcode_glob_match("", "HGMMA"));
}

TEST(OpcodeFamilies, SelectAndSatisfy) {
  const std::vector<std::vector<std::string>> hopper{{"*GMMA"}, {"UTMALDG", "UTMASTG", "UTMAREDG"}};
  const OpcodeCounts tma_and_gmma{{"HGMMA", 4}, {"UTMALDG", 2}, {"FFMA", 100}, {"UTMASTG", 0}};
  EXPECT_TRUE(groups_satisfied(tma_and_gmma, hopper));
  EXPECT_EQ(select_families(tma_and_gmma, hopper), (OpcodeCounts{{"HGMMA", 4}, {"UTMALDG", 2}}));

  const OpcodeCounts gmma_only{{"HGMMA", 4}, {"UTMALDG", 0}, {"LDG", 8}};
  EXPECT_FALSE(groups_satisfied(gmma_only, hopper));
  EXPECT_EQ(select_families(gmma_only, hopper), (OpcodeCounts{{"HGMMA", 4}}));
  EXPECT_FALSE(groups_satisfied({}, hopper));
  EXPECT_TRUE(groups_satisfied({}, {}));
}

// ---- source text ----------------------------------------------------------------------------------

TEST(ScanSource, ForbiddenIncludesWithLineNumbers) {
  const std::string source =
      "#include \"interface.h\"\n"
      "#include <cuda.h>\n"
      "#include <cublas_v2.h>\n"
      "  #  include \"cutlass/gemm/device/gemm.h\"\n"
      "#include <cute/tensor.hpp>\n"
      "#include <dlfcn.h>\n"
      "#include <cudnn.h>\n"
      "#include <curand_kernel.h>\n"
      "#include <cuda/barrier>\n"
      "// #include <cublasLt.h>\n"
      "/* #include <cufft.h>\n"
      "   #include <nccl.h> */\n"
      "const char* s = \"/* not a comment\";\n"
      "#include \"third_party/cusolverDn.h\"\n"
      "#include <my_cute/x.h>\n";
  const auto reasons = scan_source(source);
  const std::vector<std::string> expected{
      "line 3: includes <cublas_v2.h>: library kernels (cuBLAS) are forbidden",
      "line 4: includes \"cutlass/gemm/device/gemm.h\": library kernels (CUTLASS) are forbidden",
      "line 5: includes <cute/tensor.hpp>: library kernels (CuTe) are forbidden",
      "line 6: includes <dlfcn.h>: dynamic loading is forbidden",
      "line 7: includes <cudnn.h>: library kernels (cuDNN) are forbidden",
      "line 14: includes \"third_party/cusolverDn.h\": library kernels (cuSOLVER) are forbidden",
  };
  EXPECT_EQ(reasons, expected) << joined(reasons);
  EXPECT_TRUE(scan_source("#include <cuda_bf16.h>\nint x = 1'000;\n// #include <cublas_v2.h>\n").empty());
}

// ---- shared-object imports (host-compiled stand-ins; no CUDA needed) --------------------------------

class Imports : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (testing::host_compiler().empty()) return;
    dir_ = new TempDir;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "no host C++ compiler (g++ or c++) on PATH";
  }
  // A shared object exporting `ptxbench_gemm` whose body is `body`, after `declarations`.
  static std::filesystem::path candidate(const std::string& name, const std::string& declarations,
                                         const std::string& body, std::vector<std::string> extra = {}) {
    return build_host_so(dir_->path(), name,
                         declarations + "\nextern \"C\" int ptxbench_gemm() {\n" + body + "\nreturn 0; }\n",
                         std::move(extra));
  }
  static TempDir* dir_;
};
TempDir* Imports::dir_ = nullptr;

TEST_F(Imports, CleanObjectHasNoFindings) {
  const auto so = candidate("clean", "#include <cstdio>\n#include <cmath>", "std::printf(\"%f\\n\", std::sqrt(2.0));");
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_TRUE(report.entry_exported);
  EXPECT_TRUE(report.forbidden.empty()) << joined(report.forbidden);
  EXPECT_FALSE(report.needed.empty());
  EXPECT_TRUE(std::find(report.undefined.begin(), report.undefined.end(), "printf") != report.undefined.end())
      << joined(report.undefined);
}

TEST_F(Imports, LibraryKernelIsForbidden) {
  const auto so = candidate("cublas", "extern \"C\" int cublasCreate_v2(void**);", "void* h; cublasCreate_v2(&h);");
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_TRUE(report.entry_exported);
  EXPECT_EQ(report.forbidden,
            std::vector<std::string>{"calls cublasCreate_v2: library kernels (cuBLAS) are forbidden"});
}

TEST_F(Imports, DlopenIsForbidden) {
  const auto so = candidate("dl", "#include <dlfcn.h>", "dlsym(dlopen(\"libcublas.so\", RTLD_NOW), \"x\");");
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_TRUE(any_contains(report.forbidden, "calls dlopen: dynamic loading is forbidden")) << joined(report.forbidden);
  EXPECT_TRUE(any_contains(report.forbidden, "calls dlsym: dynamic loading is forbidden")) << joined(report.forbidden);
}

TEST_F(Imports, StreamAndContextCreationAreForbidden) {
  const auto so = candidate("streams",
                            "extern \"C\" int cudaStreamCreate(void**);\n"
                            "extern \"C\" int cuCtxCreate_v4(void**, void*, unsigned, int);",
                            "void* s; cudaStreamCreate(&s); cuCtxCreate_v4(&s, nullptr, 0, 0);");
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_TRUE(any_contains(report.forbidden, "calls cudaStreamCreate: creating streams is forbidden"))
      << joined(report.forbidden);
  EXPECT_TRUE(any_contains(report.forbidden, "calls cuCtxCreate_v4: creating a context is forbidden"))
      << joined(report.forbidden);
}

TEST_F(Imports, StdThreadIsForbidden) {
  const auto so = candidate("thread", "#include <thread>", "std::thread t([] {}); t.join();", {"-pthread"});
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_EQ(report.forbidden, std::vector<std::string>{"uses std::thread: creating threads is forbidden"});
}

TEST_F(Imports, RawFileIoIsForbidden) {
  const auto so = candidate("io", "#include <fcntl.h>\n#include <unistd.h>",
                            "int fd = open(\"/tmp/x\", O_RDONLY); write(fd, \"x\", 1);");
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_TRUE(any_contains(report.forbidden, "opening files is forbidden")) << joined(report.forbidden);
  EXPECT_TRUE(any_contains(report.forbidden, "calls write: raw output is forbidden")) << joined(report.forbidden);
}

TEST_F(Imports, UnlistedLibraryIsForbidden) {
  const auto lib = build_host_so(dir_->path(), "libhelper", "extern \"C\" int helper() { return 1; }");
  const auto so =
      candidate("linked", "extern \"C\" int helper();", "helper();", {"-L" + dir_->path().string(), "-lhelper"});
  ASSERT_FALSE(lib.empty());
  const auto report = check_imports(so, "ptxbench_gemm");
  EXPECT_TRUE(any_contains(report.forbidden, "links libhelper.so: only the CUDA runtime and driver"))
      << joined(report.forbidden);
}

TEST_F(Imports, MissingOrMangledEntryIsBadAbi) {
  const auto so = candidate("noentry", "", "");
  const auto missing = check_imports(so, "ptxbench_mha_fwd");
  EXPECT_FALSE(missing.entry_exported);
  EXPECT_EQ(missing.forbidden,
            std::vector<std::string>{"bad ABI: `ptxbench_mha_fwd` is not exported by the shared object (is it "
                                     "declared extern \"C\" and defined?)"});

  const auto mangled = build_host_so(dir_->path(), "mangled", "int ptxbench_gemm(int m) { return m; }");
  const auto report = check_imports(mangled, "ptxbench_gemm");
  EXPECT_FALSE(report.entry_exported);
  ASSERT_EQ(report.forbidden.size(), 1u) << joined(report.forbidden);
  EXPECT_NE(report.forbidden[0].find("only under its C++ name _Z13ptxbench_gemmi (declare it extern \"C\")"),
            std::string::npos)
      << report.forbidden[0];

  const auto variable = build_host_so(dir_->path(), "variable", "extern \"C\" int ptxbench_gemm = 3;");
  EXPECT_FALSE(check_imports(variable, "ptxbench_gemm").entry_exported);
}

TEST_F(Imports, NotAnElfFileThrows) {
  const auto text = write_file(dir_->path() / "not-elf.so", "hello\n");
  EXPECT_THROW(check_imports(text, "ptxbench_gemm"), Error);
  EXPECT_THROW(check_imports(dir_->path() / "absent.so", "ptxbench_gemm"), Error);
}

// ---- host code issuing system calls ------------------------------------------------------------------

TEST(HostSyscalls, RawSyscallInstructionIsForbidden) {
  if (testing::host_compiler().empty()) GTEST_SKIP() << "no host C++ compiler (g++ or c++) on PATH";
  if (find_in_path("objdump").empty()) GTEST_SKIP() << "objdump not found on PATH";
  TempDir tmp;
  const auto dirty =
      build_host_so(tmp.path(), "dirty",
                    "extern \"C\" long sneaky(long n) { long r;\n"
                    "  asm volatile(\"syscall\" : \"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\", \"memory\");\n"
                    "  return r; }\n"
                    "extern \"C\" int ptxbench_gemm() { return 0; }\n");
  std::string note;
  const auto reasons = scan_host_syscalls(dirty, &note);
  EXPECT_EQ(reasons, std::vector<std::string>{
                         "host function `sneaky` executes `syscall` directly: raw system calls are forbidden"});
  EXPECT_TRUE(note.empty()) << note;

  const auto clean = build_host_so(tmp.path(), "clean", "extern \"C\" int ptxbench_gemm() { return 0; }\n");
  EXPECT_TRUE(scan_host_syscalls(clean, &note).empty());
}

// ---- real nvcc + cuobjdump: target instructions in PTX and SASS ------------------------------------

constexpr const char* kTargetsKernel = R"cu(#include <cstdint>
extern "C" __global__ void targets(const void* tmap, unsigned long long da, unsigned long long db, float* out) {
  __shared__ alignas(128) unsigned char tile[4096];
  __shared__ alignas(8) unsigned long long bar;
  unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  unsigned mbar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem), "l"(tmap), "r"(0), "r"(0), "r"(mbar) : "memory");
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(1));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[threadIdx.x] = d0 + d1 + d2 + d3;
}
extern "C" cudaError_t ptxbench_gemm(float* out, cudaStream_t stream) {
  targets<<<1, 128, 0, stream>>>(nullptr, 0, 0, out);
  return cudaGetLastError();
}
)cu";

constexpr const char* kFfmaKernel = R"cu(
__global__ void axpb(float* x, float a, float b) { x[threadIdx.x] = fmaf(x[threadIdx.x], a, b); }
extern "C" cudaError_t ptxbench_gemm(float* x, cudaStream_t stream) {
  axpb<<<1, 32, 0, stream>>>(x, 2.0f, 1.0f);
  return cudaGetLastError();
}
)cu";

const std::vector<std::vector<std::string>> kHopperGroups{{"*GMMA"}, {"UTMALDG", "UTMASTG", "UTMAREDG"}};

// Both kernels are built once for the suite; nvcc takes seconds per file.
class BuiltCandidates : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (find_nvcc().empty()) return;
    dir_ = new TempDir;
    targets_ = new BuildResult(build_candidate(write_file(dir_->path() / "targets.cu", kTargetsKernel),
                                               dir_->path() / "targets", BuildOptions{}));
    ffma_ = new BuildResult(
        build_candidate(write_file(dir_->path() / "ffma.cu", kFfmaKernel), dir_->path() / "ffma", BuildOptions{}));
  }
  static void TearDownTestSuite() {
    delete targets_;
    delete ffma_;
    delete dir_;
    targets_ = ffma_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!dir_) GTEST_SKIP() << "nvcc not found ($PTXBENCH_NVCC, PATH, /usr/local/cuda/bin)";
    ASSERT_TRUE(targets_->ok) << targets_->command << "\n" << targets_->log;
    ASSERT_TRUE(ffma_->ok) << ffma_->command << "\n" << ffma_->log;
  }
  static TempDir* dir_;
  static BuildResult* targets_;
  static BuildResult* ffma_;
};
TempDir* BuiltCandidates::dir_ = nullptr;
BuildResult* BuiltCandidates::targets_ = nullptr;
BuildResult* BuiltCandidates::ffma_ = nullptr;

TEST_F(BuiltCandidates, KeptPtxHoldsTheTargetInstructions) {
  const std::vector<std::string> prefixes{"wgmma.mma_async", "cp.async.bulk.tensor", "wgmma.fence", "mbarrier"};
  const auto targets = scan_ptx(testing::read_file(targets_->ptx), prefixes);
  EXPECT_EQ(targets.at("wgmma.mma_async"), 1);
  EXPECT_EQ(targets.at("cp.async.bulk.tensor"), 1);
  EXPECT_EQ(targets.at("wgmma.fence"), 1);
  EXPECT_EQ(targets.at("mbarrier"), 0);
  const auto plain = scan_ptx(testing::read_file(ffma_->ptx), prefixes);
  for (const auto& [prefix, count] : plain) EXPECT_EQ(count, 0) << prefix;
}

TEST_F(BuiltCandidates, SassShowsHgmmaAndUtmaldgOnlyWhereUsed) {
  const auto cuobjdump = find_cuobjdump();
  if (cuobjdump.empty())
    GTEST_SKIP() << "cuobjdump not found ($PTXBENCH_CUOBJDUMP, PATH, CUDA, PyPI nvidia-cuda-cuobjdump)";
  const auto targets = sass_opcode_counts(targets_->shared_object, cuobjdump);
  EXPECT_GE(targets.count("HGMMA") ? targets.at("HGMMA") : 0, 1);
  EXPECT_GE(targets.count("UTMALDG") ? targets.at("UTMALDG") : 0, 1);
  EXPECT_TRUE(groups_satisfied(targets, kHopperGroups));

  const auto plain = sass_opcode_counts(ffma_->shared_object, cuobjdump);
  EXPECT_GE(plain.count("FFMA") ? plain.at("FFMA") : 0, 1);
  EXPECT_TRUE(select_families(plain, kHopperGroups).empty());
  EXPECT_FALSE(groups_satisfied(plain, kHopperGroups));
}

TEST_F(BuiltCandidates, HostOnlyObjectHasNoSass) {
  const auto cuobjdump = find_cuobjdump();
  if (cuobjdump.empty()) GTEST_SKIP() << "cuobjdump not found";
  if (testing::host_compiler().empty()) GTEST_SKIP() << "no host C++ compiler";
  const auto so = build_host_so(dir_->path(), "hostonly", "extern \"C\" int f() { return 1; }");
  EXPECT_TRUE(sass_opcode_counts(so, cuobjdump).empty());
  EXPECT_THROW(sass_opcode_counts(dir_->path() / "absent.so", cuobjdump), Error);
}

TEST_F(BuiltCandidates, NvccBuiltObjectsPassImportAndSyscallChecks) {
  for (const BuildResult* built : {targets_, ffma_}) {
    const auto report = check_imports(built->shared_object, "ptxbench_gemm");
    EXPECT_TRUE(report.entry_exported);
    EXPECT_TRUE(report.forbidden.empty()) << joined(report.forbidden);
    EXPECT_TRUE(std::any_of(report.needed.begin(), report.needed.end(), [](const auto& n) {
      return n.starts_with("libcudart.so");
    })) << joined(report.needed);
    std::string note;
    EXPECT_TRUE(scan_host_syscalls(built->shared_object, &note).empty());
  }
}

}  // namespace
}  // namespace ptxbench
