# Attack: compile and launch a kernel directly with triton.compiler.compile and the compiled
# kernel's own launcher, around kernel[grid](...) and whatever the harness hooks there.
# Expected: triton_internal.
import triton
import triton.language as tl
from triton.compiler import ASTSource


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    src = ASTSource(copy_kernel, signature={"a_ptr": "*bf16", "c_ptr": "*bf16"}, constexprs={})
    compiled = triton.compiler.compile(src)
    compiled[(1, 1, 1)](A, C)
