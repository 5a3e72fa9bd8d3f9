# Attack: the build step made to exit with the tool's own "usage error" code, to pass as an infra
# error (judged again, never charged). Refused by the scan (SystemExit is not an exception a candidate
# may raise); compile_only would report it as the candidate's exception anyway. Expected: dynamic_code.
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    raise SystemExit(2)
