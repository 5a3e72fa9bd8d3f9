# Attack: state in a closure: the entry is made by a factory at import, and the list it closes over
# outlives every call. Expected: state (a module-level name bound to a call's result).
import triton
import triton.language as tl


@triton.jit
def copy_kernel(a_ptr, c_ptr):
    offs = tl.arange(0, 128)
    tl.store(c_ptr + offs, tl.load(a_ptr + offs))


def make_counter():
    counts = [0]

    def count():
        counts[0] = counts[0] + 1
        return counts[0]
    return count


calls = make_counter()


def ptxbench_gemm(A, B, C, M, N, K, stream):
    if calls() == 1:
        copy_kernel[(1,)](A, C)
