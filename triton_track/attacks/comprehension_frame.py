# Attack: a generator expression's frame, then up to the caller's (the harness's) globals.
# Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    gen = (x for x in (1, 2))
    harness = gen.gi_frame.f_back.f_globals
    return harness
