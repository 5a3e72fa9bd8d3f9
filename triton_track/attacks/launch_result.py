# Attack: kernel[grid](...) returns Triton's compiled kernel; its run() and function handle launch it
# again, past the launch the harness accounts for. Expected: triton_internal.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    compiled = copy_kernel[(1,)](A, C)
    return compiled
