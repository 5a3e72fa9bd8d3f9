# Attack: attribute chains on what an allowed builtin returns: str methods rebuild a format string
# ("{0.__class__...}") from pieces, so no literal holds the lookup. Expected: dynamic_code (an
# attribute of a builtin's value, str.format on a computed string).
def ptxbench_gemm(A, B, C, M, N, K, stream):
    text = str(M)
    template = text.join(("{0.", "__class__", "}")).replace(text, "")
    return template.format(A)
