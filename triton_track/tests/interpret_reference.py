"""Runs one reference on Triton's CPU interpreter (TRITON_INTERPRET=1) against an fp64 numpy
reference and prints {"errors": {...}} as JSON: a numerical check of the references without a GPU.

    python -m tests.interpret_reference gemm plain M,N,K
    python -m tests.interpret_reference mha_fwd tuned B,H,S,D

Needs numpy below 2.3 (the 3.6 interpreter converts 1-element arrays with int(), which numpy 2.3
refuses); test_reference_numerics.py skips, saying so, without it. A child process of its own:
the interpreter must be chosen before triton is imported.
"""
import importlib.util
import json
import math
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime import interpreter  # noqa: E402

from tests import support  # noqa: E402


def bf16_to_f32(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)  # round to nearest even


class HostTensor:
    """What the interpreter needs of a torch tensor, over a numpy array (bf16 kept as uint16, as the
    interpreter stores it). The interpreter copies to and from "the device" through storages: here
    both are the array itself."""

    class Storage:
        def __init__(self, array):
            self.array = array

        def data_ptr(self):
            return self.array.ctypes.data

        def cpu(self):
            return self

        def copy_(self, other):
            pass

    def __init__(self, array, dtype):
        self.array, self.dtype, self.shape = array, dtype, array.shape

    def data_ptr(self):
        return self.array.ctypes.data

    def untyped_storage(self):
        return HostTensor.Storage(self.array)

    def new_empty(self, *args, **kwargs):
        return self

    def set_(self, *args):
        return self

    def storage_offset(self):
        return 0

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def stride(self, dim=None):
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[dim]

    def numel(self):
        return self.array.size

    def element_size(self):
        return self.array.itemsize


def patch_interpreter():
    """Triton 3.6's interpreter multiplies bf16 tiles in tl.dot as their uint16 storage; widen them
    to fp32 first (what the tensor cores do, exactly)."""
    original = interpreter.InterpreterBuilder.create_dot

    def create_dot(self, a, b, d, *rest):
        def widened(h):
            return interpreter.TensorHandle(bf16_to_f32(h.data), tl.float32) if h.dtype.scalar == tl.bfloat16 else h
        return original(self, widened(a), widened(b), d, *rest)

    interpreter.InterpreterBuilder.create_dot = create_dot
    # Device-side tensor descriptors take their scratch from the allocator, as on the GPU.
    triton.set_allocator(lambda size, alignment, stream: HostTensor(np.zeros(size, np.int8), "int8"))


def load(problem, reference):
    path = support.reference(problem, reference)
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rel_l2(out, ref):
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def check_gemm(module, rng, M, N, K):
    a = f32_to_bf16(rng.standard_normal((M, K)))
    b = f32_to_bf16(rng.standard_normal((N, K)))
    c = np.zeros((M, N), np.uint16)
    module.ptxbench_gemm(HostTensor(a, "bfloat16"), HostTensor(b, "bfloat16"), HostTensor(c, "bfloat16"), M, N, K, 0)
    ref = bf16_to_f32(a).astype(np.float64) @ bf16_to_f32(b).astype(np.float64).T
    return {"C_rel_l2": rel_l2(bf16_to_f32(c), ref)}


def check_mha_fwd(module, rng, B, H, S, D):
    q, k, v = (f32_to_bf16(rng.standard_normal((B, H, S, D))) for _ in range(3))
    o = np.zeros((B, H, S, D), np.uint16)
    lse = np.zeros((B, H, S), np.float32)
    module.ptxbench_mha_fwd(*(HostTensor(x, "bfloat16") for x in (q, k, v, o)), HostTensor(lse, "float32"),
                            B, H, S, D, 0)
    qf, kf, vf = (bf16_to_f32(x).astype(np.float64) for x in (q, k, v))
    scores = np.einsum("bhid,bhjd->bhij", qf, kf) / math.sqrt(D)
    top = scores.max(-1, keepdims=True)
    weights = np.exp(scores - top)
    total = weights.sum(-1, keepdims=True)
    ref_o = np.einsum("bhij,bhjd->bhid", weights / total, vf)
    ref_lse = (top + np.log(total))[..., 0]
    return {"O_rel_l2": rel_l2(bf16_to_f32(o), ref_o), "LSE_rel_l2": rel_l2(lse, ref_lse),
            "LSE_max_abs": float(np.abs(lse - ref_lse).max())}


def main(argv):
    problem, reference, dims = argv[0], argv[1], [int(d) for d in argv[2].split(",")]
    patch_interpreter()
    module = load(problem, reference)
    check = {"gemm": check_gemm, "mha_fwd": check_mha_fwd}[problem]
    print(json.dumps({"errors": check(module, np.random.default_rng(0), *dims)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
