# Attack: import a second file next to the candidate (a relative import), which the scan never
# reads. Expected: import.
from . import helper_module


def ptxbench_gemm(A, B, C, M, N, K, stream):
    helper_module.gemm(A, B, C, M, N, K)
