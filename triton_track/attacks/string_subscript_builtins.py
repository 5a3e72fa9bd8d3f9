# Attack: Python's builtins reached by string subscripts, with no dunder attribute and no forbidden
# name: tl.sum is a JIT function of Triton's standard library; get_capture_scope() hands back its
# module's globals (a dict), whose "__builtins__" entry holds __import__. The scan before the
# allowlist let it through. Expected: dynamic_code (the string keys, the attribute off the allowlist).
import triton.language as tl


def ptxbench_gemm(A, B, C, M, N, K, stream):
    reduce_fn = tl.sum
    scope = reduce_fn.get_capture_scope()
    load = scope["__builtins__"]["__import__"]
    torch = load("torch")
    torch.matmul(torch.as_tensor(A), torch.as_tensor(B).T, out=torch.as_tensor(C))
