# Attack: Python's builtins are reachable through the kernel language's implementation module
# (triton.language.core imports builtins), so exec needs no name of its own. Expected:
# triton_internal (tl.core: the path is refused at its first step off the list).
import triton.language as tl


def ptxbench_gemm(A, B, C, M, N, K, stream):
    tl.core.builtins.exec("import torch")
