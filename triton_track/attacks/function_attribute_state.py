# Attack: keep a call counter in the entry function's own attribute (no global statement, no
# module-level container): only the first call does the work. Expected: state.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    ptxbench_gemm.calls = ptxbench_gemm.calls + 1
    if ptxbench_gemm.calls == 1:
        copy_kernel[(1,)](A, C)


ptxbench_gemm.calls = 0
