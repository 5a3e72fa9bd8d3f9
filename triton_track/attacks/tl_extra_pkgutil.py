# Attack: triton.language.extra imports pkgutil, which can import any module by name.
# Expected: dynamic_code.
import triton.language as tl


def ptxbench_gemm(A, B, C, M, N, K, stream):
    torch = tl.extra.pkgutil.resolve_name("torch")
    torch.matmul(torch.as_tensor(A), torch.as_tensor(B).T, out=torch.as_tensor(C))
