# Attack: @triton.jit(launch_metadata=...) makes Triton call a candidate function at every launch
# with the launch's internals (the grid, the kernel's metadata, its arguments). Expected:
# triton_internal (a jit option off the list).
import triton
import triton.language as tl


def spy(grid, metadata, args):
    return {}


@triton.jit(launch_metadata=spy)
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel[(1,)](A, C)
