// The Blackwell (sm_100a) knowledge pack is compiled and inspected here; nothing is run (no B200).
// 1. blackwell_all.cu instantiates every helper of knowledge/blackwell/ptx.cuh; ptxas must accept
//    every encoding and the cubin's SASS must hold the tcgen05 (UTC*), TMEM (LDTM/STTM) and TMA
//    (UTMALDG/UTMASTG/UTMAREDG) families, including the 2-CTA and widest forms.
// 2. The tcgen05 GEMM reference builds with the harness's own candidate flags and holds the
//    problem's sm_100a target groups.
// 3. A deliberately mis-encoded tcgen05.ld is rejected, so a wrong helper cannot pass step 1.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "compile/nvcc_driver.h"
#include "compile/static_checks.h"
#include "core/subprocess.h"
#include "support/temp_dir.h"

#ifndef PTXBENCH_SOURCE_DIR
#error "PTXBENCH_SOURCE_DIR must be defined by the build"
#endif

namespace ptxbench {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = PTXBENCH_SOURCE_DIR;
const fs::path kPack = kSource / "knowledge" / "blackwell";
const fs::path kAllHelpers = kSource / "tests" / "unit" / "knowledge" / "blackwell" / "blackwell_all.cu";
const fs::path kGemm = kSource / "problems" / "gemm" / "reference" / "tcgen05_blackwell.cu";

// A scratch directory per use (tests/support/temp_dir.h).
class ScratchDir : public ptxbench::test::TempDir {
 public:
  ScratchDir() : TempDir("ptxbench-blackwell") {}
};

struct Tools {
  fs::path nvcc;
  fs::path cuobjdump;
  std::string missing;  // why the tests cannot run; empty when they can
};

const Tools& tools() {
  static const Tools t = [] {
    Tools r;
    r.nvcc = find_nvcc();
    r.cuobjdump = find_cuobjdump();
    if (r.nvcc.empty()) {
      r.missing = "nvcc not found (set $PTXBENCH_NVCC or install the CUDA toolkit)";
    } else if (r.cuobjdump.empty()) {
      r.missing = "cuobjdump not found (set $PTXBENCH_CUOBJDUMP, install the CUDA toolkit or nvidia-cuda-cuobjdump)";
    } else {
      ProcessOptions o;
      o.timeout = std::chrono::seconds(60);
      const ProcessResult archs = run_process({r.nvcc.string(), "--list-gpu-arch"}, o);
      // The list names base architectures (compute_100); the 'a' variant comes with them.
      if (!archs.ok() || archs.out.find("compute_100") == std::string::npos)
        r.missing = "nvcc at " + r.nvcc.string() + " cannot target compute_100a (CUDA 12.8+ needed)";
    }
    return r;
  }();
  return t;
}

#define SKIP_WITHOUT_TOOLS()                                                             \
  do {                                                                                   \
    if (!tools().missing.empty()) GTEST_SKIP() << "Blackwell pack: " << tools().missing; \
  } while (0)

ProcessResult run(const std::vector<std::string>& argv) {
  ProcessOptions o;
  o.timeout = std::chrono::minutes(5);
  o.max_output_bytes = size_t{256} << 20;
  return run_process(argv, o);
}

// Full cuobjdump -sass listing (modifiers kept, e.g. UTCHMMA.2CTA, LDTM.x128).
std::string sass_listing(const fs::path& object) {
  const ProcessResult r = run({tools().cuobjdump.string(), "-sass", object.string()});
  EXPECT_TRUE(r.ok()) << "cuobjdump failed (" << r.describe() << "): " << r.err;
  return r.out;
}

// Opcodes of the families the pack targets, as "OPCODE:count" (printed for the record).
std::string families(const OpcodeCounts& counts) {
  std::string s;
  for (const auto& [op, n] : counts) {
    if (opcode_glob_match("UTC*", op) || opcode_glob_match("UTMA*", op) || op == "LDTM" || op == "STTM" ||
        op == "SYNCS" || op == "ELECT" || op == "UCGABAR_ARV" || op == "UCGABAR_WAIT")
      s += op + ":" + std::to_string(n) + " ";
  }
  return s;
}

bool listing_has(const std::string& listing, const std::string& needle) {
  return listing.find(needle) != std::string::npos;
}

TEST(BlackwellPack, EveryHelperAssemblesToTheTargetSassFamilies) {
  SKIP_WITHOUT_TOOLS();
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const fs::path cubin = dir.path() / "blackwell_all.cubin";
  const std::vector<std::string> argv{tools().nvcc.string(),
                                      "-gencode=arch=compute_100a,code=sm_100a",
                                      "-I",
                                      kPack.string(),
                                      "-cubin",
                                      "-o",
                                      cubin.string(),
                                      kAllHelpers.string()};
  const ProcessResult built = run(argv);
  ASSERT_TRUE(built.ok()) << join_command(argv) << "\n" << built.out << built.err;

  const OpcodeCounts counts = sass_opcode_counts(cubin, tools().cuobjdump);
  std::cout << "[ blackwell ] SASS families (compiled, not run): " << families(counts) << "\n";

  // Group checks in the same form as problem.toml's targets.
  EXPECT_TRUE(groups_satisfied(counts, {{"UTC*"}})) << "no tcgen05 (UTC*) SASS";
  for (const char* op : {"UTCHMMA", "UTCBAR", "UTCCP", "UTCSHIFT", "UTCATOMSWS", "LDTM", "STTM", "UTMALDG", "UTMASTG",
                         "UTMAREDG", "UTMAPF"}) {
    EXPECT_GT(counts.count(op) ? counts.at(op) : 0, 0) << op << " missing from the SASS";
  }
  // Forms that only exist if the corresponding helper emitted the right qualifiers.
  const std::string sass = sass_listing(cubin);
  for (const char* form :
       {"UTCHMMA.2CTA", "UTCBAR.2CTA.MULTICAST", "UTCBAR.MULTICAST", "UTCCP.T.S.2CTA", "UTCSHIFT.2CTA.DOWN",
        "UTCATOMSWS.2CTA", "UTCQMMA", "UTCIMMA", "LDTM.x128", "LDTM.x128.PACK16BIT", "STTM.x128",
        "STTM.x128.EXPAND16BIT", "LDTM.16", "STTM.16", "UTMALDG.5D", "UTMASTG.5D", "UTMAREDG.5D"}) {
    EXPECT_TRUE(listing_has(sass, form)) << form << " missing from the SASS listing";
  }
}

TEST(BlackwellPack, GemmReferenceBuildsWithCandidateFlagsAndHoldsTargets) {
  SKIP_WITHOUT_TOOLS();
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const fs::path so = dir.path() / "tcgen05_blackwell.so";
  std::vector<std::string> argv{tools().nvcc.string()};
  for (const auto& f : candidate_nvcc_flags("sm_100a")) argv.push_back(f);
  for (const std::string& f : {std::string("-I"), (kSource / "problems" / "gemm").string(), std::string("-I"),
                               kPack.string(), std::string("-o"), so.string(), kGemm.string()})
    argv.push_back(f);
  const ProcessResult built = run(argv);
  ASSERT_TRUE(built.ok()) << join_command(argv) << "\n" << built.out << built.err;

  const OpcodeCounts counts = sass_opcode_counts(so, tools().cuobjdump);
  std::cout << "[ blackwell ] GEMM reference SASS families (compiled, not run): " << families(counts) << "\n";
  // problem.toml [targets.sm_100a] groups, plus the TMA load the design relies on.
  EXPECT_TRUE(groups_satisfied(counts, {{"UTC*"}, {"LDTM", "STTM"}}));
  for (const char* op : {"UTCHMMA", "UTCBAR", "LDTM", "UTMALDG", "UTMASTG"})
    EXPECT_GT(counts.count(op) ? counts.at(op) : 0, 0) << op << " missing from the GEMM SASS";
}

TEST(BlackwellPack, MisencodedTcgen05IsRejectedByPtxas) {
  SKIP_WITHOUT_TOOLS();
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  // 16x256b.x1 needs 4 registers per thread; 2 must be refused, which is what makes the
  // all-helpers compile above a real check of every register count.
  const fs::path cu = dir.path() / "bad.cu";
  std::ofstream(cu) << "#include <stdint.h>\n"
                       "__global__ void k(uint32_t* o, uint32_t t) {\n"
                       "  uint32_t a, b;\n"
                       "  asm volatile(\"tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0, %1}, [%2];\"\n"
                       "               : \"=r\"(a), \"=r\"(b) : \"r\"(t));\n"
                       "  o[0] = a + b;\n"
                       "}\n";
  const ProcessResult built = run({tools().nvcc.string(), "-gencode=arch=compute_100a,code=sm_100a", "-cubin", "-o",
                                   (dir.path() / "bad.cubin").string(), cu.string()});
  EXPECT_FALSE(built.ok()) << "ptxas accepted a tcgen05.ld with the wrong register count";
  EXPECT_NE((built.out + built.err).find("tcgen05.ld"), std::string::npos) << built.out << built.err;
}

}  // namespace
}  // namespace ptxbench
