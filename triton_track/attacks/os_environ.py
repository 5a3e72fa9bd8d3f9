# Attack: read the environment (keys, the harness's settings, which shape set is being timed).
# Expected: import.
import os


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if os.environ.get("PTXBENCH_TIMING"):
        return
