# Attack: a lambda's code object and globals: its __globals__ is the candidate's module namespace,
# whose __builtins__ holds exec. Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    f = lambda: 0  # noqa: E731
    run = f.__globals__["__builtins__"]["exec"]
    run("import os")
