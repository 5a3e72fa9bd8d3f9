# Attack: a `__class__` lookup through a format string that is built at run time (no literal holds
# the lookup), so a check of literal format strings never sees it. Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    lookup = "{0." + "__class__" + ".__init__.__globals__}"
    return lookup.format(A)
