# Attack: a match statement's class pattern looks attributes up by keyword (case object(__class__=c)),
# a dunder lookup with no attribute expression in the tree. Expected: construct.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    match A:
        case object(__class__=cls):
            return cls
