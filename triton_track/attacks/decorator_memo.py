# Attack: a decorator of one's own runs at import and wraps the helper in a closure that remembers
# every shape it has seen. Expected: construct (a decorator other than @triton.jit).
import triton
import triton.language as tl


def once_per_shape(helper):
    seen = []

    def wrapper(A, C, M, N, K):
        if (M, N, K) not in seen:
            seen.append((M, N, K))
            helper(A, C, M, N, K)
    return wrapper


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


@once_per_shape
def launch(A, C, M, N, K):
    copy_kernel[(1,)](A, C)


def ptxbench_gemm(A, B, C, M, N, K, stream):
    launch(A, C, M, N, K)
