# Attack: a kernel's internals through a function parameter: the helper never names the kernel, it is
# handed it, and installs a hook Triton runs inside every launch. The scan before the allowlist let it
# through. Expected: triton_internal (the kernel passed as a value).
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def on_launch(*args, **kwargs):
    return None


def install(kernel, hook):
    kernel.add_pre_run_hook(hook)


def ptxbench_gemm(A, B, C, M, N, K, stream):
    install(copy_kernel, on_launch)
    copy_kernel[(1,)](A, C)
