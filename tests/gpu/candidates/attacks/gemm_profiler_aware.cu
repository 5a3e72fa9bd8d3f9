// ATTACK (class 4, behaving differently when counted): looks for an external profiling tool in its
// process (the injection variable that ncu and compute-sanitizer set, or their injected
// libraries) and runs the wgmma expert GEMM only then; everywhere else a plain SIMT GEMM. A judge that counts
// executed instructions in a separate, profiled process reports target_executed: true for a
// kernel whose timed path never executes a tensor instruction. Counted in the judged process on
// checked calls, its targets must come out NOT executed (it is a correct SIMT GEMM).
#include <link.h>

#include <cstdlib>
#include <cstring>

#include "ptx.cuh"

namespace simt {
#define ptxbench_gemm simt_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm
}  // namespace simt
namespace tc {
#define ptxbench_gemm tc_gemm
#include "../../../../problems/gemm/reference/expert.cu"
#undef ptxbench_gemm
}  // namespace tc

namespace {

int looks_injected(struct dl_phdr_info* info, size_t, void* found) {
  for (const char* tool : {"ToolsInjection", "sanitizer-collection", "InterceptorInjection"})
    if (info->dlpi_name && std::strstr(info->dlpi_name, tool)) *static_cast<bool*>(found) = true;
  return 0;
}

bool profiled() {
  static const bool p = [] {
    bool found = std::getenv("CUDA_INJECTION64_PATH") || std::getenv("NV_COMPUTE_PROFILER_PERFWORKS_DIR");
    dl_iterate_phdr(looks_injected, &found);
    return found;
  }();
  return p;
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  return profiled() ? tc::tc_gemm(A, B, C, M, N, K, stream) : simt::simt_gemm(A, B, C, M, N, K, stream);
}
