# Attack: a kernel's internals under another name. `kk` is not the kernel's name, so a check of
# `copy_kernel.<attr>` never sees it: add_pre_run_hook makes Triton run candidate code inside every
# launch, with the launch's arguments. The scan before the allowlist let it through. Expected:
# triton_internal (a kernel used as a value).
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    kk = copy_kernel
    kk.add_pre_run_hook(print)
    kk[(1,)](A, C)
