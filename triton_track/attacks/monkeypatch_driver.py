# Attack: replace Triton's active driver, so that the harness's launches (and its accounting of
# them) go through the candidate's object. Expected: triton_internal.
import triton


class Quiet:
    def __getattr__(self, name):
        return lambda *a, **k: None


def ptxbench_gemm(A, B, C, M, N, K, stream):
    triton.runtime.driver.active = Quiet()
