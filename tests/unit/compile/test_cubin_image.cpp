// The cubins of a real nvcc-built shared object, read from its .nv_fatbin section: the kernels
// each defines, and the byte-for-byte match the worker applies to every module the driver loads.
#include <gtest/gtest.h>

#include "compile/nvcc_driver.h"
#include "compile/tool_paths.h"
#include "compile_test_support.h"
#include "core/error.h"
#include "runner/integrity/cubin_image.h"

using namespace ptxbench;
using namespace ptxbench::testing;

namespace {

TEST(CubinImage, ReadsTheKernelsOfEachCubinInAnNvccBuiltLibrary) {
  const auto nvcc = find_nvcc();
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found";
  TempDir dir;
  const auto cu = write_file(dir.path() / "k.cu", R"(
    namespace { __global__ void hidden_name(float* x) { x[threadIdx.x] += 1; } }
    __global__ void visible(float* x) { x[threadIdx.x] *= 2; }
    extern "C" int launch(float* x) { hidden_name<<<1, 32>>>(x); visible<<<1, 32>>>(x); return 0; })");
  const auto so = dir.path() / "k.so";
  const ProcessResult r = run_process({nvcc.string(), "-shared", "-Xcompiler", "-fPIC",
                                       "-gencode=arch=compute_90a,code=sm_90a", cu.string(), "-o", so.string()});
  ASSERT_TRUE(r.ok()) << r.err;
  const auto cubins = read_fatbin_cubins(so);
  ASSERT_FALSE(cubins.empty());
  std::vector<std::string> all;
  for (const auto& c : cubins) all.insert(all.end(), c.functions.begin(), c.functions.end());
  bool hidden = false, visible = false;
  for (const auto& f : all) {
    hidden = hidden || f.find("hidden_name") != std::string::npos;  // local (anonymous namespace) kernels too
    visible = visible || f == "_Z7visiblePf";
  }
  EXPECT_TRUE(hidden && visible) << ::testing::PrintToString(all);
  const auto& image = cubins.back();
  EXPECT_TRUE(image.matches(image.bytes));
  std::string changed = image.bytes;
  changed[changed.size() / 2] ^= 1;
  EXPECT_FALSE(image.matches(changed));
  EXPECT_FALSE(image.matches(image.bytes + "x"));
}

TEST(CubinImage, NonElfInputIsAnError) {
  EXPECT_THROW(cubin_functions("not an elf"), Error);
  EXPECT_TRUE(parse_fatbin(std::string(64, '\0')).empty());
}

}  // namespace
