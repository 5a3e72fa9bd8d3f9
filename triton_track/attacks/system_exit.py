# Attack: the build step made to exit with the tool's own "usage error" code, to pass as an infra
# error (judged again, never charged). Expected: compile_error (the candidate's exception).
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    raise SystemExit(2)
