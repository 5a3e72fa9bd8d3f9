# Attack: the entry does nothing (no kernel, so nothing to check statically). Expected: compile_error.
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    return None
