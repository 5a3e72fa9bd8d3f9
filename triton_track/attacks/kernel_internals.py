# Attack: reach a compiled kernel through its JIT function (warmup compiles without a launch, the
# caches hold the compiled kernels and their launchers). Expected: triton_internal.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel.warmup(A, C, grid=(1,))
    for compiled in copy_kernel.device_caches[0][0].values():
        compiled.run(1, 1, 1, 0, compiled.function, None, None, None, None, A, C)
