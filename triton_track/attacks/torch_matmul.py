# Attack: hand the work to torch (cuBLAS) instead of a Triton kernel: import torch, wrap the
# buffers and call torch.matmul. Expected: the import rule.
import torch


def ptxbench_gemm(A, B, C, M, N, K, stream):
    a = torch.as_tensor(A)
    b = torch.as_tensor(B)
    torch.matmul(a, b.T, out=torch.as_tensor(C))
