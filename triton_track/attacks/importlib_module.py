# Attack: import torch through importlib.import_module with a computed name. Expected: import.
import importlib


def ptxbench_gemm(A, B, C, M, N, K, stream):
    torch = importlib.import_module("".join(["to", "rch"]))
    torch.matmul(torch.as_tensor(A), torch.as_tensor(B).T, out=torch.as_tensor(C))
