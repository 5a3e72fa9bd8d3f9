# Attack: launch one of Triton's own JIT functions (tl.sum) as if it were the candidate's kernel:
# tl.sum is a JIT function like the candidate's, and f[grid] gives a launcher for any JIT function.
# By name, under an alias, and through a helper that subscripts whatever it is given. Expected:
# triton_internal.
import triton.language as tl


def launcher_of(function, grid):
    return function[grid]


def ptxbench_gemm(A, B, C, M, N, K, stream):
    tl.sum[(1,)](A, 0)
    library_kernel = tl.sum
    library_kernel[(1,)](A, 0)
    run_sum = launcher_of(tl.sum, (1,))
    run_sum(A, 0)
