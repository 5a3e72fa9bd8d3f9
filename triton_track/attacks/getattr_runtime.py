# Attack: reach Triton's runtime (its driver, to launch a library kernel or read the harness's
# state) with a computed attribute name, past the attribute check. Expected: dynamic_code.
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    runtime = getattr(triton, "run" + "time")
    runtime.driver.active.utils.load_binary("k", b"", 0, 0)
