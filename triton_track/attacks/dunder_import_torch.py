# Attack: import torch past the import statement check with __import__. Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    torch = __import__("to" + "rch")
    torch.matmul(torch.as_tensor(A), torch.as_tensor(B).T, out=torch.as_tensor(C))
