# Attack: typing.get_type_hints evaluates string annotations as code, so the code hides in a string.
# Expected: dynamic_code.
import typing


def hidden(x: "print('ran') or 1"):
    return x


def ptxbench_gemm(A, B, C, M, N, K, stream):
    typing.get_type_hints(hidden)
