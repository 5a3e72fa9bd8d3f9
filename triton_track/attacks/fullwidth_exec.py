# Attack: exec spelled in fullwidth letters. Python folds identifiers to NFKC before they are names,
# so this calls the builtin exec; a scan of the raw text would not find "exec". Expected: dynamic_code.
def ptxbench_gemm(A, B, C, M, N, K, stream):
    ｅｘｅｃ("import os")
