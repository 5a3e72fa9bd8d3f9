"""The boxes of the TMA tensor descriptors a compiled kernel uses, read from its TTGIR.

A kernel that makes its descriptors on the device (tl.make_tensor_descriptor) hands the harness no
encoded tensor map, so the worker cannot size its copies as it sizes a CUDA kernel's (from the
cuTensorMapEncode* call). The box of every descriptor is a compile-time type in Triton's IR,
!tt.tensordesc<tensor<128x64xbf16, ...>>, and the judge sizes each TMA copy of the kernel as the
smallest of them: a lower bound, as for CUDA kernels given several maps.
"""
import re

# Element types of Triton's IR, in bytes. A type not listed sizes its box as 0 (the kernel's copies
# then count no bytes): never more than the copies moved.
_ELEMENT_BYTES = {
    "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "tf32": 4,
    "f8E4M3FN": 1, "f8E5M2": 1, "f8E4M3FNUZ": 1, "f8E5M2FNUZ": 1, "f8E4M3B11FNUZ": 1,
}
_DESCRIPTOR = re.compile(r"!tt\.tensordesc<tensor<((?:\d+x)+)([A-Za-z][A-Za-z0-9]*)")


def box_bytes(ttgir):
    """The distinct box sizes in bytes of the descriptors in `ttgir`, ascending ([] for none)."""
    sizes = set()
    for dims, element in _DESCRIPTOR.findall(ttgir or ""):
        n = 1
        for d in dims.rstrip("x").split("x"):
            n *= int(d)
        sizes.add(n * _ELEMENT_BYTES.get(element, 0))
    return sorted(sizes)
