// ATTACK (issue 30, a stream the harness does not see): the name "cuStreamCreate" is decoded at
// run time (no such string in the file, no import of it), the function asked for through the
// runtime's entry-point lookup and then through cuGetProcAddress; with a stream of its own, half of
// C's rows are computed there and never joined back to the given stream. Must be `forbidden`
// (a refused lookup is reported; a stream created, or work on another stream, is a violation).
#include "target_decoy.cuh"

namespace {

// "cuStreamCreate", each byte XOR 0x5a.
constexpr unsigned char kName[] = {0x39, 0x2f, 0x09, 0x2e, 0x28, 0x3f, 0x3b, 0x37, 0x19, 0x28, 0x3f, 0x3b, 0x2e, 0x3f};

CUstream own_stream() {
  static CUstream side = nullptr;
  static bool tried = false;
  if (tried) return side;
  tried = true;
  char name[sizeof kName + 1] = {};
  for (size_t i = 0; i < sizeof kName; ++i) name[i] = char(kName[i] ^ 0x5a);
  using Create = CUresult (*)(CUstream*, unsigned);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) == cudaSuccess && fn)
    reinterpret_cast<Create>(fn)(&side, CU_STREAM_NON_BLOCKING);
  if (!side) {
    CUdriverProcAddressQueryResult dq{};
    fn = nullptr;
    if (cuGetProcAddress(name, &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &dq) == CUDA_SUCCESS && fn)
      reinterpret_cast<Create>(fn)(&side, CU_STREAM_NON_BLOCKING);
  }
  (void)cudaGetLastError();  // a refused lookup leaves its error behind: not this call's failure
  return side;
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const CUstream side = own_stream();
  if (!side || M < 256) return decoy::gemm(A, B, C, M, N, K, stream, decoy::kDecoyNone);
  const int half = (M / 2) / 128 * 128;
  cudaError_t e = decoy::gemm(A, B, C, M, N, K, stream, decoy::kDecoyNone, 0, half);
  if (e != cudaSuccess) return e;
  return decoy::gemm(A, B, C, M, N, K, reinterpret_cast<cudaStream_t>(side), decoy::kDecoyNone, half, M);
}
