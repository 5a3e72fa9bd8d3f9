# Attack: from triton.runtime import driver. Expected: import.
import triton
from triton.runtime import driver


def ptxbench_gemm(A, B, C, M, N, K, stream):
    driver.active = None
