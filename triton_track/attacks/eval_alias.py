# Attack: eval referenced under another name, then called. Expected: dynamic_code.
import triton

run = eval


def ptxbench_gemm(A, B, C, M, N, K, stream):
    run("1")
