# Attack: carry the builtin open in under another name (a parameter's default), so no call of
# `open` appears. Expected: file_io.
def read(path, reader=open):
    with reader(path) as f:
        return f.read()


def ptxbench_gemm(A, B, C, M, N, K, stream):
    read("/proc/self/cmdline")
