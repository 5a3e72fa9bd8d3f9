# Not Python: a missing colon. The scan answers ok=false with the line (exit 1); compile_only too.
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream)  # ERROR-LINE
    pass
