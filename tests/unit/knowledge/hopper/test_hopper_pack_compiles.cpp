// The Hopper knowledge pack (knowledge/hopper/ptx.cuh) must compile for sm_90a and every helper must
// reach ptxas and come out as the intended SASS. tests/unit/knowledge/hopper/hopper_all.cu instantiates
// every function of the pack (every wgmma N, SS and RS, bf16/f16/e4m3/e5m2, every TMA rank, ...);
// these tests compile it and read the SASS. No GPU is needed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "compile/nvcc_driver.h"
#include "compile/static_checks.h"
#include "core/subprocess.h"
#include "support/temp_dir.h"

namespace ptxbench {
namespace {

namespace fs = std::filesystem;

fs::path source_dir() { return PTXBENCH_SOURCE_DIR; }
fs::path pack_dir() { return source_dir() / "knowledge" / "hopper"; }
fs::path all_source() { return source_dir() / "tests" / "unit" / "knowledge" / "hopper" / "hopper_all.cu"; }

// A scratch directory per use (tests/support/temp_dir.h).
class ScratchDir : public ptxbench::test::TempDir {
 public:
  ScratchDir() : TempDir("ptxbench-hopper-pack") {}
};

// nvcc and cuobjdump, or a reason to skip.
struct Tools {
  fs::path nvcc, cuobjdump;
  std::string missing;
};
const Tools& tools() {
  static const Tools t = [] {
    Tools r;
    r.nvcc = find_nvcc();
    r.cuobjdump = find_cuobjdump();
    if (r.nvcc.empty()) r.missing = "nvcc not found ($PTXBENCH_NVCC, PATH, /usr/local/cuda/bin/nvcc)";
    else if (r.cuobjdump.empty()) r.missing = "cuobjdump not found ($PTXBENCH_CUOBJDUMP, PATH, CUDA toolkit, PyPI)";
    return r;
  }();
  return t;
}

ProcessResult run(const std::vector<std::string>& argv) {
  ProcessOptions options;
  options.timeout = std::chrono::minutes(5);
  options.max_output_bytes = size_t{64} << 20;
  return run_process(argv, options);
}

// The pack compiled once (cubin, exactly the flags of the brief) and its SASS listing, shared by tests.
struct Compiled {
  ProcessResult nvcc;
  std::string sass;
  OpcodeCounts counts;
  std::string error;  // empty when both steps worked
};
const Compiled& compiled_pack() {
  static ScratchDir dir;
  static const Compiled c = [] {
    Compiled r;
    const fs::path cubin = dir.path() / "hopper_all.cubin";
    r.nvcc =
        run({tools().nvcc.string(), "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-I", pack_dir().string(),
             "-Xptxas", "-warn-spills", "-cubin", "-o", cubin.string(), all_source().string()});
    if (!r.nvcc.ok()) {
      r.error = "nvcc failed (" + r.nvcc.describe() + "):\n" + r.nvcc.err + r.nvcc.out;
      return r;
    }
    const ProcessResult dump = run({tools().cuobjdump.string(), "-sass", cubin.string()});
    if (!dump.ok()) {
      r.error = "cuobjdump failed (" + dump.describe() + "): " + dump.err;
      return r;
    }
    r.sass = dump.out;
    r.counts = parse_sass_listing(dump.out);
    return r;
  }();
  return c;
}

class HopperPackCompiles : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tools().missing.empty()) GTEST_SKIP() << tools().missing;
    ASSERT_TRUE(fs::exists(pack_dir() / "ptx.cuh")) << pack_dir();
  }
};

TEST_F(HopperPackCompiles, CompilesForSm90aWithoutWarningsAndEmitsEveryFamily) {
  const Compiled& c = compiled_pack();
  ASSERT_TRUE(c.error.empty()) << c.error;
  // A warning, or ptxas' "info" notes about lost performance, mean a helper is subtly wrong:
  // (C7511) wgmma serialized, (C7517/C7519) warpgroup.wait/arrive injected, (C7508) setmaxnreg ignored.
  const std::string diagnostics = c.nvcc.err + c.nvcc.out;
  for (const char* bad : {"warning", "Potential Performance Loss", "injected", "spill"})
    EXPECT_EQ(diagnostics.find(bad), std::string::npos) << "`" << bad << "` in:\n" << diagnostics;
  // HGMMA: wgmma bf16/f16; QGMMA: wgmma fp8; UTMA*: TMA load/store/reduce/prefetch; UBLKCP: bulk copy;
  // SYNCS: mbarrier; STSM/LDSM: stmatrix/ldmatrix; USETMAXREG: setmaxnreg; UCGABAR_*: barrier.cluster;
  // ELECT: elect.sync; WARPGROUP: wgmma.fence / commit / wait.
  for (const char* family : {"HGMMA", "QGMMA", "UTMALDG", "UTMASTG", "UTMAREDG", "UTMAPF", "UBLKCP", "SYNCS", "STSM",
                             "LDSM", "USETMAXREG", "UCGABAR_ARV", "UCGABAR_WAIT", "ELECT", "WARPGROUP"}) {
    EXPECT_GT(c.counts.count(family) ? c.counts.at(family) : 0, 0) << family << " missing from the SASS";
  }
}

TEST_F(HopperPackCompiles, EveryWgmmaShapeAndTmaRankReachesSass) {
  const Compiled& c = compiled_pack();
  ASSERT_TRUE(c.error.empty()) << c.error;
  std::set<std::string> seen;
  static const std::regex gmma(R"(([HQ]GMMA\.64x\d+x\d+\.F32(\.[A-Z0-9]+)*))");
  for (std::sregex_iterator it(c.sass.begin(), c.sass.end(), gmma), end; it != end; ++it) seen.insert((*it)[1]);
  for (int n = 8; n <= 256; n += 8) {
    const std::string s = std::to_string(n);
    // f16 inputs print without a type suffix: HGMMA.64xNx16.F32
    for (const std::string& want : {"HGMMA.64x" + s + "x16.F32.BF16", "HGMMA.64x" + s + "x16.F32",
                                    "QGMMA.64x" + s + "x32.F32.E4M3.E4M3", "QGMMA.64x" + s + "x32.F32.E5M2.E5M2"})
      EXPECT_TRUE(seen.count(want)) << want << " not in the SASS";
  }
  // Register-A (RS) forms: the A operand is a register, not a gdesc.
  static const std::regex rs_form(R"(HGMMA\.64x\d+x16\.F32\.BF16 R\d+, R\d+, gdesc)");
  EXPECT_TRUE(std::regex_search(c.sass, rs_form)) << "no RS-form HGMMA (A from registers)";
  // Immediate arguments reach the instruction: negation and transposes.
  for (const char* modifier : {".negA", ".negB", ".tnspA", ".tnspB"})
    EXPECT_NE(c.sass.find(modifier), std::string::npos) << modifier;
  for (int rank = 1; rank <= 5; ++rank) {
    const std::string d = std::to_string(rank) + "D";
    for (const std::string& want :
         {"UTMALDG." + d + " ", "UTMALDG." + d + ".MULTICAST", "UTMASTG." + d, "UTMAREDG." + d + ".ADD",
          "UTMAREDG." + d + ".MIN", "UTMAREDG." + d + ".MAX", "UTMAPF.L2." + d})
      EXPECT_NE(c.sass.find(want), std::string::npos) << want << " not in the SASS";
  }
}

TEST_F(HopperPackCompiles, CompilesAsACandidateSharedObject) {
  // Exactly how a candidate that includes the pack is built (C++17, -shared, host code included).
  ScratchDir dir;
  std::vector<std::string> argv{tools().nvcc.string()};
  for (const auto& flag : candidate_nvcc_flags("sm_90a")) argv.push_back(flag);
  for (const std::string& extra : std::vector<std::string>{"-I", pack_dir().string(), "-o",
                                                           (dir.path() / "pack.so").string(), all_source().string()})
    argv.push_back(extra);
  const ProcessResult r = run(argv);
  ASSERT_TRUE(r.ok()) << join_command(argv) << "\n" << r.describe() << "\n" << r.err << r.out;
}

TEST_F(HopperPackCompiles, InvalidTemplateArgumentsAreCompileErrors) {
  // The static_asserts catch what ptxas would reject (or silently mis-execute).
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> cases{
      {"N must be a multiple of 8", "float d[6]; hopper::wgmma_bf16_ss<12>(d, 0, 0);"},
      {"setmaxnreg: N in [24, 256]", "hopper::setmaxnreg_dec<16>();"},
      {"ScaleA/ScaleB must be +1 or -1", "float d[32]; hopper::wgmma_f16_ss<64, 2>(d, 0, 0);"},
  };
  for (const auto& [message, body] : cases) {
    const std::string& what = message;
    const fs::path cu = dir.path() / "bad.cu";
    std::ofstream(cu) << "#include \"ptx.cuh\"\n__global__ void k() { " << body << " }\n";
    const ProcessResult r =
        run({tools().nvcc.string(), "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-I", pack_dir().string(),
             "-cubin", "-o", (dir.path() / "bad.cubin").string(), cu.string()});
    EXPECT_FALSE(r.ok()) << what << ": compiled, but should not have";
    EXPECT_NE(r.err.find(message), std::string::npos) << "expected the static_assert \"" << what << "\": " << r.err;
  }
}

}  // namespace
}  // namespace ptxbench
