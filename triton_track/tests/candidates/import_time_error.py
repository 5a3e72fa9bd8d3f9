# An exception while the module is imported (before the entry runs): its line is the diagnostic's.
import triton

TILE = int("128 tiles")  # ERROR-LINE


def ptxbench_gemm(A, B, C, M, N, K, stream):
    pass
