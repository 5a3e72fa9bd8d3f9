# Attack: a tensor's internals inside a kernel: .handle is the IR value and .type its IR type; the
# code generator runs whatever is called on them at compile time. Expected: triton_internal.
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(a_ptr + offs)
    ir_value = x.handle
    ir_type = x.type
    tl.store(c_ptr + offs, x)


def ptxbench_gemm(A, B, C, M, N, K, stream):
    copy_kernel[(1,)](A, C)
