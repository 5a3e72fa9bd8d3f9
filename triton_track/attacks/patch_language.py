# Attack: change the kernel language that the harness (and every later candidate in the process)
# shares: tl.dot replaced by a function of the candidate's. Expected: state.
import triton.language as tl


def fake_dot(a, b, acc=None, **kwargs):
    return acc


def ptxbench_gemm(A, B, C, M, N, K, stream):
    tl.dot = fake_dot
