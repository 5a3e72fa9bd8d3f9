# A candidate whose entry has another name: compile_only must say so (exit 1, line 1).
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def gemm(A, B, C, M, N, K, stream):
    copy_kernel[(1,)](A, C)
