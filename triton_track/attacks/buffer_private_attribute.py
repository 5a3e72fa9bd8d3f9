# Attack: tell the build's stand-in buffers from the real ones by their private fields (or any
# attribute beyond the ABI's metadata), then launch a different kernel in the build than on the GPU.
# Expected: dynamic_code (an attribute off the allowlist).
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if A._address % 4096 == 0 and A.is_contiguous():
        copy_kernel[(1,)](A, C)
