# Attack: run code the scan never sees, from a string. Expected: dynamic_code.
SOURCE = "imp" + "ort torch\ntorch.matmul(torch.as_tensor(A), torch.as_tensor(B).T, out=torch.as_tensor(C))"


def ptxbench_gemm(A, B, C, M, N, K, stream):
    exec(SOURCE, {"A": A, "B": B, "C": C})
