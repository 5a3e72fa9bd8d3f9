# Not an attack: one kernel launched three times with two BLOCK values (two specializations), so
# the manifest must list two cubins with 2 and 1 launches.
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def ptxbench_gemm(A, B, C, M, N, K, stream):
    n = M * N
    scale_kernel[(triton.cdiv(n, 1024),)](A, C, n, BLOCK=1024)
    scale_kernel[(triton.cdiv(n, 1024),)](B, C, n, BLOCK=1024)
    scale_kernel[(triton.cdiv(n, 256),)](A, C, n, BLOCK=256)
