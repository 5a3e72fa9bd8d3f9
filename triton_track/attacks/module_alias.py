# Attack: bind the triton module to another name, so `triton.runtime` never appears as such.
# Expected: dynamic_code (a module used as a value).
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    t = triton
    t.runtime.driver.active.get_current_stream()
