# Attack: str.format looks up attributes named inside the format string, dunders included, where
# no attribute access appears in the syntax tree. Expected: dynamic_code.
def helper():
    pass


def ptxbench_gemm(A, B, C, M, N, K, stream):
    leak = "{0.__globals__}".format(helper)
    return leak
