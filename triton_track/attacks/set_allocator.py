# Attack: install the candidate's own allocator for device-side TMA descriptors: it runs inside
# every launch and may hand out memory the harness does not account for. Expected: triton_internal.
import triton


def ptxbench_gemm(A, B, C, M, N, K, stream):
    triton.set_allocator(lambda size, alignment, stream: C)
