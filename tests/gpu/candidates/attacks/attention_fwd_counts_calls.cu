// ATTACK (class 4, behaving differently when counted): a judge that counts executed instructions
// on the first calls of each shape (correctness checks, a probe) and times later ones. This
// candidate runs the wgmma forward attention on the first three calls of every shape and a plain
// SIMT kernel on every later one (all timed calls). Must not come out as target-executing and
// correct: either `forbidden` (the counted call ran other kernels than the timed calls) or
// target_executed false (a counted timed call ran no tensor instruction).
#include <map>
#include <tuple>

#include "ptx.cuh"

namespace simt {
#define ptxbench_mha_fwd simt_mha_fwd
#include "../../../../problems/mha_fwd/reference/naive.cu"
#undef ptxbench_mha_fwd
}  // namespace simt
namespace tc {
#define ptxbench_mha_fwd tc_mha_fwd
#include "../../../../problems/mha_fwd/reference/wgmma_tma.cu"
#undef ptxbench_mha_fwd
}  // namespace tc

extern "C" cudaError_t ptxbench_mha_fwd(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* LSE, int B, int H, int S, int D, cudaStream_t stream) {
  static std::map<std::tuple<int, int, int, int>, int> calls;
  const int n = calls[{B, H, S, D}]++;
  return n < 3 ? tc::tc_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream) : simt::simt_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream);
}
