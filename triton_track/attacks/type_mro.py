# Attack: from a buffer's class up its hierarchy to object, then down to every class the process has
# loaded (subprocess.Popen among them). Expected: dynamic_code (type, the dunders).
def ptxbench_gemm(A, B, C, M, N, K, stream):
    root = type(A).__mro__[-1]
    for cls in root.__subclasses__():
        if cls.__name__ == "Popen":
            cls(["true"])
