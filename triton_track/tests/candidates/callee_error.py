# A Triton compile error inside a @triton.jit helper that the kernel calls: the diagnostic must
# point at the helper's line (marked below), not the caller's.
import triton
import triton.language as tl


@triton.jit
def helper(x):
    return tl.dot(x, x)  # ERROR-LINE


@triton.jit
def caller_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(a_ptr + offs)
    tl.store(c_ptr + offs, helper(x))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    caller_kernel[(1,)](A, C)
