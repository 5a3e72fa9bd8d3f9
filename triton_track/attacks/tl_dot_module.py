# Attack: the language's implementation module by way of a public function's __module__ (the string
# "triton.language.core") and its __globals__ (that module's namespace). Expected: dynamic_code.
import triton.language as tl


def ptxbench_gemm(A, B, C, M, N, K, stream):
    where = tl.dot.__module__
    namespace = tl.dot.__globals__
    return where, namespace
