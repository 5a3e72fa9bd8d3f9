# Not an attack: the allowed surface in one file, so the scan's false positives show up as test
# failures. Uses libdevice both ways, tl.math, typing annotations, math, a callable grid,
# triton.next_power_of_2, jit options, f-strings and a literal str.format, inline PTX, a device
# helper and `if __name__ == "__main__"`. Must scan clean and compile.
import math
from typing import Optional

import triton
import triton.language as tl
from triton.language.extra import libdevice

SCALE = tl.constexpr(0.5)


@triton.jit
def gelu(x):
    return 0.5 * x * (1.0 + libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@triton.jit(do_not_specialize=["n"])
def elementwise_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = gelu(x) + tl.math.exp(x) * SCALE + tl.extra.cuda.libdevice.erf(x)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [y], dtype=tl.float32, is_pure=True, pack=1)
    for i in tl.static_range(2):
        y = y + i
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


def launch_size(n: int, block: Optional[int] = None) -> int:
    return block or min(1024, triton.next_power_of_2(n))


def ptxbench_gemm(A, B, C, M, N, K, stream):
    n = C.numel()
    block = launch_size(n)
    label = f"{A.shape} {C.stride(0)} {'{} x {}'.format(M, N)} {math.sqrt(K):.1f} {A.dtype} {A.element_size()}"
    assert label
    elementwise_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](A, C, n, BLOCK=block, num_warps=4)


if __name__ == "__main__":
    print("a candidate is imported, not run")
