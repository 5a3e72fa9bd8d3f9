# Attack: a builtin function's __self__ is the builtins module: open, exec and __import__ without
# naming them. Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    builtins_module = min.__self__
    return builtins_module.open("/proc/self/environ").read()
