# Attack (or innocent mistake): autotuning benchmarks every configuration inside the harness's
# first timed call and then keeps the fastest, so the timing measures the tuner. Expected:
# triton_internal.
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["M"])
@triton.jit
def copy_kernel(a_ptr, c_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=offs < M), mask=offs < M)


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel[lambda meta: (triton.cdiv(M, meta["BLOCK"]),)](A, C, M)
