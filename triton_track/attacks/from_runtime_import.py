# Attack: from triton.runtime import driver. Expected: triton_internal.
import triton
from triton.runtime import driver


def ptxbench_gemm(A, B, C, M, N, K, stream):
    driver.active = None
