# Attack: builtins reached through the class hierarchy, without naming them. Expected: dynamic_code.
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    for cls in ().__class__.__base__.__subclasses__():
        if cls.__name__ == "Popen":
            cls(["true"])
