"""Runs one reference on Triton's CPU interpreter (TRITON_INTERPRET=1) against an fp64 numpy
reference and prints {"errors": {...}} as JSON: a numerical check of the references without a GPU.

    python -m tests.interpret_reference gemm plain M,N,K
    python -m tests.interpret_reference mha_fwd tuned B,H,S,D
    python -m tests.interpret_reference gqa_bwd tuned B,Hkv,G,S,D

Every output the problem's tolerance names is compared (its relative L2 error, its largest absolute
error and its worst element against the per-element bound |out - ref| <= atol * rms(ref) +
rtol * |ref| of problem.toml: "<OUT>_rel_l2", "<OUT>_max_abs", "<OUT>_worst", the last <= 1 when
within). Inputs are drawn as the problem's workload draws them (workload.cu); the fp64 reference
follows its CUDA reference (reference/naive.cu): scale 1/sqrt(D), causal query i attends keys
0..i, query head h reads key/value head h / G, LSE in natural log, the backward's P from the given
LSE and Delta from the given (bf16) O, dK and dV summed over each group's query heads.

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


def e4m3_table():
    """The 256 e4m3 (fn) codes as fp32: 1 sign, 4 exponent (bias 7), 3 mantissa bits; 0x7f/0xff NaN."""
    v = np.arange(256)
    sign = np.where(v & 0x80, -1.0, 1.0)
    e, m = (v >> 3) & 0xF, v & 7
    mag = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7.0))
    return np.where((v & 0x7F) == 0x7F, np.nan, sign * mag).astype(np.float32)


E4M3 = e4m3_table()


def to_e4m3(x):
    """Round to the nearest finite e4m3 code (ties to either neighbour: these are test inputs)."""
    finite = np.flatnonzero(~np.isnan(E4M3))
    order = finite[np.argsort(E4M3[finite])]
    values = E4M3[order].astype(np.float64)
    i = np.clip(np.searchsorted(values, x), 1, len(values) - 1)
    nearer_low = np.abs(x - values[i - 1]) <= np.abs(values[i] - x)
    return order[np.where(nearer_low, i - 1, i)].astype(np.uint8)


def patch_interpreter():
    """Makes Triton 3.6's interpreter compute what the GPU computes: it multiplies bf16 and fp8 tiles
    in tl.dot as their integer storage (widened to fp32 here first, as the tensor cores do, exactly),
    and truncates fp32 to bf16."""
    original = interpreter.InterpreterBuilder.create_dot

    def create_dot(self, a, b, d, *rest):
        def widened(h):
            if h.dtype.scalar == tl.bfloat16:
                return interpreter.TensorHandle(bf16_to_f32(h.data), tl.float32)
            if h.dtype.scalar == tl.float8e4nv:
                return interpreter.TensorHandle(E4M3[h.data], tl.float32)
            return h
        return original(self, widened(a), widened(b), d, *rest)

    interpreter.InterpreterBuilder.create_dot = create_dot

    # Its fp32 -> bf16 cast truncates (round toward zero), doubling bf16's rounding error; the GPU's
    # cvt.rn.bf16.f32 rounds to nearest even, as f32_to_bf16 does.
    original_cast = interpreter.InterpreterBuilder.cast_impl

    def cast_impl(self, src, dst_type):
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            return interpreter.TensorHandle(f32_to_bf16(src.data), tl.bfloat16)
        return original_cast(self, src, dst_type)

    interpreter.InterpreterBuilder.cast_impl = cast_impl
    # Device-side tensor descriptors take their scratch from the allocator, as on the GPU.
    triton.set_allocator(lambda size, alignment, stream: HostTensor(np.zeros(size, np.int8), "int8"))


def load(problem, reference):
    path = support.reference(problem, reference)
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compare(out, ref, tolerance):
    """{rel_l2, max_abs, worst}: worst is the largest |out - ref| / (atol * rms(ref) + rtol * |ref|)."""
    out, ref = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    diff = np.abs(out - ref)
    rms = float(np.sqrt(np.mean(ref * ref)))
    bound = tolerance["atol"] * rms + tolerance["rtol"] * np.abs(ref)
    return {"rel_l2": float(np.linalg.norm(out - ref) / np.linalg.norm(ref)), "max_abs": float(diff.max()),
            "worst": float((diff / bound).max())}


def uniform_bf16(rng, shape, lo, hi):
    return f32_to_bf16(rng.uniform(lo, hi, shape))


def wide(x):
    return bf16_to_f32(x).astype(np.float64)


def check_gemm(module, rng, M, N, K):
    a = uniform_bf16(rng, (M, K), -1, 1)
    b = uniform_bf16(rng, (N, K), -1, 1)
    c = np.zeros((M, N), np.uint16)
    module.ptxbench_gemm(HostTensor(a, "bfloat16"), HostTensor(b, "bfloat16"), HostTensor(c, "bfloat16"), M, N, K, 0)
    return {"C": (bf16_to_f32(c), wide(a) @ wide(b).T)}, {}


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def check_gemm_bias_gelu(module, rng, M, N, K):
    # As the workload: A, B uniform in [-a, a], a = sqrt(1.5 / sqrt(K)); bias uniform in [-4, 2] (a
    # sixth of the columns in the tail where the erf GELU is 3-12% off the tanh form).
    bound = math.sqrt(1.5 / math.sqrt(K))
    a = uniform_bf16(rng, (M, K), -bound, bound)
    b = uniform_bf16(rng, (N, K), -bound, bound)
    bias = uniform_bf16(rng, (N,), -4, 2)
    c = np.zeros((M, N), np.uint16)
    module.ptxbench_gemm_bias_gelu(*(HostTensor(x, "bfloat16") for x in (a, b, bias, c)), M, N, K, 0)
    z = wide(a) @ wide(b).T + wide(bias)[None, :]
    erf_gelu = f32_to_bf16(0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2))))
    # The control: the exact (erf) GELU, rounded to bf16, must be out of the tolerance on these inputs.
    return {"C": (bf16_to_f32(c), gelu_tanh(z))}, {"C_erf_gelu": (bf16_to_f32(erf_gelu), gelu_tanh(z))}


def check_gemm_fp8(module, rng, M, N, K):
    # As the workload: quantized values in [-256, 256], scales in [0.5, 1.5] / 256.
    a = to_e4m3(rng.uniform(-256, 256, (M, K)))
    b = to_e4m3(rng.uniform(-256, 256, (N, K)))
    scale_a = rng.uniform(0.5, 1.5, 1).astype(np.float32) / 256
    scale_b = rng.uniform(0.5, 1.5, 1).astype(np.float32) / 256
    c = np.zeros((M, N), np.uint16)
    module.ptxbench_gemm_fp8(HostTensor(a, "float8_e4m3fn"), HostTensor(b, "float8_e4m3fn"),
                             HostTensor(scale_a, "float32"), HostTensor(scale_b, "float32"), HostTensor(c, "bfloat16"),
                             M, N, K, 0)
    ref = float(scale_a[0]) * float(scale_b[0]) * (E4M3[a].astype(np.float64) @ E4M3[b].astype(np.float64).T)
    return {"C": (bf16_to_f32(c), ref)}, {}


def attention_forward(q, k, v, G, causal):
    """fp64 O and LSE (natural log) of bf16 Q [B,Hq,S,D], K, V [B,Hkv,S,D]; head h reads h // G."""
    qf, kf, vf = wide(q), np.repeat(wide(k), G, axis=1), np.repeat(wide(v), G, axis=1)
    S, D = q.shape[2], q.shape[3]
    scores = np.einsum("bhid,bhjd->bhij", qf, kf) / math.sqrt(D)
    if causal:
        scores = np.where(np.tril(np.ones((S, S), bool)), scores, -np.inf)  # query i attends keys 0..i
    top = scores.max(-1, keepdims=True)
    weights = np.exp(scores - top)
    total = weights.sum(-1, keepdims=True)
    return np.einsum("bhij,bhjd->bhid", weights / total, vf), (top + np.log(total))[..., 0]


def draw_qkv(rng, B, Hkv, G, S, D):
    # As the attention workloads: Q, K uniform in [-2, 2], V in [-1, 1].
    return (uniform_bf16(rng, (B, Hkv * G, S, D), -2, 2), uniform_bf16(rng, (B, Hkv, S, D), -2, 2),
            uniform_bf16(rng, (B, Hkv, S, D), -1, 1))


def check_attention_fwd(entry, B, Hkv, G, S, D, causal, gqa, rng):
    q, k, v = draw_qkv(rng, B, Hkv, G, S, D)
    o = np.zeros(q.shape, np.uint16)
    lse = np.zeros(q.shape[:3], np.float32)
    heads = (Hkv * G, Hkv) if gqa else (Hkv * G,)
    entry(*(HostTensor(x, "bfloat16") for x in (q, k, v, o)), HostTensor(lse, "float32"), B, *heads, S, D, 0)
    ref_o, ref_lse = attention_forward(q, k, v, G, causal)
    return {"O": (bf16_to_f32(o), ref_o), "LSE": (lse, ref_lse)}, {}


def check_attention_bwd(entry, B, Hkv, G, S, D, causal, gqa, rng):
    q, k, v = draw_qkv(rng, B, Hkv, G, S, D)
    d_o = uniform_bf16(rng, q.shape, -1, 1)
    # O and LSE from the forward, as the workload makes them (O rounded to bf16, LSE fp32).
    ref_o, ref_lse = attention_forward(q, k, v, G, causal)
    o, lse = f32_to_bf16(ref_o), ref_lse.astype(np.float32)
    dq = np.zeros(q.shape, np.uint16)
    dk, dv = np.zeros(k.shape, np.uint16), np.zeros(v.shape, np.uint16)
    workspace = rng.integers(0, 256, 4 * B * Hkv * G * S * (D + 1), dtype=np.uint8)  # undefined on entry
    heads = (Hkv * G, Hkv) if gqa else (Hkv * G,)
    entry(*(HostTensor(x, "bfloat16") for x in (q, k, v, o, d_o)), HostTensor(lse, "float32"),
          *(HostTensor(x, "bfloat16") for x in (dq, dk, dv)), B, *heads, S, D, HostTensor(workspace, "uint8"),
          workspace.size, 0)
    # The gradients as the CUDA reference defines them, from the given LSE and O.
    qf, kf, vf, dof = wide(q), np.repeat(wide(k), G, axis=1), np.repeat(wide(v), G, axis=1), wide(d_o)
    scale = 1 / math.sqrt(D)
    p = np.exp(np.einsum("bhid,bhjd->bhij", qf, kf) * scale - lse.astype(np.float64)[..., None])
    if causal:
        p = np.where(np.tril(np.ones((S, S), bool)), p, 0.0)
    delta = (dof * wide(o)).sum(-1)
    ds = p * (np.einsum("bhid,bhjd->bhij", dof, vf) - delta[..., None])
    ref_dq = scale * np.einsum("bhij,bhjd->bhid", ds, kf)
    per_head_dk = scale * np.einsum("bhij,bhid->bhjd", ds, qf)
    per_head_dv = np.einsum("bhij,bhid->bhjd", p, dof)
    group_sum = lambda x: x.reshape(B, Hkv, G, S, D).sum(2)  # noqa: E731
    return {"dQ": (bf16_to_f32(dq), ref_dq), "dK": (bf16_to_f32(dk), group_sum(per_head_dk)),
            "dV": (bf16_to_f32(dv), group_sum(per_head_dv))}, {}


def attention(kind, causal, gqa):
    """A check for an attention problem; its dims are B,H,S,D (B,Hkv,G,S,D when gqa)."""
    checker = check_attention_fwd if kind == "fwd" else check_attention_bwd

    def check(module, rng, *dims):
        B, Hkv, G, S, D = dims if gqa else (dims[0], dims[1], 1, dims[2], dims[3])
        entry = getattr(module, ("ptxbench_gqa_" if gqa else "ptxbench_mha_") + kind)
        return checker(entry, B, Hkv, G, S, D, causal, gqa, rng)
    return check


CHECKS = {
    "gemm": check_gemm,
    "gemm_bias_gelu": check_gemm_bias_gelu,
    "gemm_fp8": check_gemm_fp8,
    "mha_fwd": attention("fwd", causal=False, gqa=False),
    "mha_fwd_causal": attention("fwd", causal=True, gqa=False),
    "gqa_fwd": attention("fwd", causal=True, gqa=True),
    "mha_bwd": attention("bwd", causal=False, gqa=False),
    "mha_bwd_causal": attention("bwd", causal=True, gqa=False),
    "gqa_bwd": attention("bwd", causal=True, gqa=True),
}


def main(argv):
    problem, reference, dims = argv[0], argv[1], [int(d) for d in argv[2].split(",")]
    patch_interpreter()
    module = load(problem, reference)
    outputs, controls = CHECKS[problem](module, np.random.default_rng(0), *dims)
    tolerance = support.PROBLEMS[problem]["tolerance"]
    errors = {}
    for name, (out, ref) in list(outputs.items()) + list(controls.items()):
        for key, value in compare(out, ref, tolerance[name.split("_")[0]]).items():
            errors[f"{name}_{key}"] = value
    print(json.dumps({"errors": errors, "outputs": sorted(outputs)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
