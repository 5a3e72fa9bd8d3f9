# Attack: keep the result between calls. The first call computes C and remembers it in a
# module-level dict keyed by the shape; later calls of the same shape launch a cheap kernel that
# only copies the remembered tile... and here, to stay short, skip the GEMM after the first call.
# Before the allowlist this passed the scan and was left to the GPU judge (fresh inputs per call,
# results checked on every counted call); module-level names now hold constants only. Expected: state.
import triton
import triton.language as tl

_done = {}


@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * K + (k + ks)[None, :])
        b = tl.load(b_ptr + cols[:, None] * K + (k + ks)[None, :])
        acc = tl.dot(a, b.T, acc)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.bfloat16))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    key = (M, N, K, C.data_ptr())
    if _done.get(key):
        return
    gemm_kernel[(M // 128, N // 128)](A, B, C, M, N, K, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8)
    _done[key] = True
