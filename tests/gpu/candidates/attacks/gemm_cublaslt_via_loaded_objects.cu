// ATTACK (class 3, a library reached without an import): the worker has cuBLASLt loaded for its
// baseline. This candidate finds it with dl_iterate_phdr, reads cublasLt's functions from its
// dynamic symbol table in memory (no cublas header, no library name among its imports) and
// calls cublasLtMatmul on the given stream: cuBLAS's speed, reported as the candidate's. Must be
// `forbidden` (a library kernel ran inside the call).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "interface.h"
#include "loaded_symbols.cuh"

namespace {

using Handle = void*;
using Status = int;
struct Algo { uint64_t data[8]; };
struct Heuristic { Algo algo; size_t workspace; Status state; float waves; int reserved[4]; };
constexpr int kCompute32F = 68, kR32F = 0, kR16BF = 14, kTransA = 3, kTransB = 4, kPrefMaxWorkspace = 1;

struct Lt {
  Status (*create)(Handle*);
  Status (*desc_create)(Handle*, int, int);
  Status (*desc_set)(Handle, int, const void*, size_t);
  Status (*layout_create)(Handle*, int, uint64_t, uint64_t, int64_t);
  Status (*layout_destroy)(Handle);
  Status (*pref_create)(Handle*);
  Status (*pref_set)(Handle, int, const void*, size_t);
  Status (*heuristic)(Handle, Handle, Handle, Handle, Handle, Handle, Handle, int, Heuristic*, int*);
  Status (*matmul)(Handle, Handle, const void*, const void*, Handle, const void*, Handle, const void*, const void*,
                   Handle, void*, Handle, const Algo*, void*, size_t, cudaStream_t);
  bool ok = false;
};

template <typename F>
void get(F& f, const char* name, bool& ok) {
  f = reinterpret_cast<F>(attack::find_by_phdr("libcublasLt", name));
  ok = ok && f != nullptr;
}

const Lt& lt() {
  static Lt l = [] {
    Lt x;
    bool ok = true;
    get(x.create, "cublasLtCreate", ok);
    get(x.desc_create, "cublasLtMatmulDescCreate", ok);
    get(x.desc_set, "cublasLtMatmulDescSetAttribute", ok);
    get(x.layout_create, "cublasLtMatrixLayoutCreate", ok);
    get(x.layout_destroy, "cublasLtMatrixLayoutDestroy", ok);
    get(x.pref_create, "cublasLtMatmulPreferenceCreate", ok);
    get(x.pref_set, "cublasLtMatmulPreferenceSetAttribute", ok);
    get(x.heuristic, "cublasLtMatmulAlgoGetHeuristic", ok);
    get(x.matmul, "cublasLtMatmul", ok);
    x.ok = ok;
    return x;
  }();
  return l;
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  const Lt& l = lt();
  if (!l.ok) return cudaErrorNotSupported;
  static Handle handle = nullptr;
  static void* workspace = nullptr;
  constexpr size_t kWorkspace = 32u << 20;
  if (!handle && (l.create(&handle) != 0 || cudaMalloc(&workspace, kWorkspace) != cudaSuccess)) return cudaErrorUnknown;
  Handle op = nullptr, a = nullptr, b = nullptr, c = nullptr, pref = nullptr;
  const int ta = 1, tb = 0;  // C^T (N x M, column-major) = B^T(as K x N)^T * A(as K x M)
  l.desc_create(&op, kCompute32F, kR32F);
  l.desc_set(op, kTransA, &ta, sizeof ta);
  l.desc_set(op, kTransB, &tb, sizeof tb);
  l.layout_create(&a, kR16BF, K, N, K);
  l.layout_create(&b, kR16BF, K, M, K);
  l.layout_create(&c, kR16BF, N, M, N);
  l.pref_create(&pref);
  const size_t ws = kWorkspace;
  l.pref_set(pref, kPrefMaxWorkspace, &ws, sizeof ws);
  Heuristic h{};
  int found = 0;
  if (l.heuristic(handle, op, a, b, c, c, pref, 1, &h, &found) != 0 || found == 0) return cudaErrorNotSupported;
  const float alpha = 1, beta = 0;
  const Status st = l.matmul(handle, op, &alpha, B, a, A, b, &beta, C, c, C, c, &h.algo, workspace, kWorkspace, stream);
  return st == 0 ? cudaSuccess : cudaErrorUnknown;
}
