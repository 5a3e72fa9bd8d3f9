# Attack: triton.language.core from inside a kernel (the code generator evaluates it at compile
# time, in the build): tl.core.builtins is Python's builtins. Expected: triton_internal.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.core.builtins.print("compiling")
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel[(1,)](A, C)
