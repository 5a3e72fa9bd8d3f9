# Attack: make a JIT function at run time from a host function (triton.jit called, not used as a
# decorator), so the kernels the build lists are not the ones that run. Expected: triton_internal.
import triton
import triton.language as tl


def body(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    kernel = triton.jit(body)
    kernel[(1,)](A, C)
