# Attack: climb from a generator's frame to the caller's (the harness's) globals, where its modules
# and state live, without one dunder. Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    def walk():
        yield 0
    gen = walk()
    next(gen)
    harness = gen.gi_frame.f_back.f_globals
    harness["os"].system("true")
