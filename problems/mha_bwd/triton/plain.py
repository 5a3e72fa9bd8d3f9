# MHA backward reference, no mask, plain Triton (FlashAttention-2 style, three kernels, no atomics).
# With scale = 1/sqrt(D) and P = exp(scale * Q K^T - LSE) over all keys:
#   Delta_i = sum_d dO[i,d] O[i,d],  dS = P * (dO V^T - Delta),
#   dQ = scale * dS K,  dK = scale * dS^T Q,  dV = P^T dO.
# Q, K, V, O, dO, dQ, dK, dV: [B, H, S, D] bf16 row-major; LSE [B, H, S] fp32 (natural log).
#   1. delta_kernel: Delta into the workspace (fp32, one per query row; its contents are undefined
#      on entry, so it is written before it is read);
#   2. dkdv_kernel: one program per 128 keys of a head, looping over every query block, P^T and
#      dS^T recomputed per block;
#   3. dq_kernel: one program per 128 queries of a head, looping over every key block.
# Every product is tl.dot (wgmma on sm_90a) on bf16 operands with fp32 accumulators; exponentials in
# base 2 (log2(e) folded into the scale and LSE).
import math

import triton
import triton.language as tl

LOG2_E = tl.constexpr(1.4426950408889634)  # a kernel reads globals only as constexpr
BLOCK_KEYS, BLOCK_QUERIES = 128, 32  # dkdv: keys per program, queries per step
BLOCK_Q, BLOCK_KV = 128, 64  # dq: queries per program, keys per step


@triton.jit
def delta_kernel(o_ptr, do_ptr, workspace_ptr, D: tl.constexpr, BLOCK: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))  # the workspace's first B*H*S floats
    rows = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    at = rows[:, None] * D + tl.arange(0, D)[None, :]
    o = tl.load(o_ptr + at).to(tl.float32)
    do = tl.load(do_ptr + at).to(tl.float32)
    tl.store(delta_ptr + rows, tl.sum(o * do, 1))


@triton.jit
def dkdv_block(dk, dv, k, v, q, do, lse2, delta, scale_log2):
    """One block of queries into the key block's dK (unscaled) and dV; rows of the transposed
    tiles are keys, columns queries."""
    p_t = tl.exp2(tl.dot(k, q.T) * scale_log2 - lse2[None, :])
    dv = tl.dot(p_t.to(tl.bfloat16), do, dv)
    ds_t = p_t * (tl.dot(v, do.T) - delta[None, :])
    dk = tl.dot(ds_t.to(tl.bfloat16), q, dk)
    return dk, dv


@triton.jit
def dkdv_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, workspace_ptr, dk_ptr, dv_ptr, S, scale_log2, scale,
                D: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))
    first = tl.program_id(0) * BLOCK_N  # the first key
    head = tl.program_id(1).to(tl.int64)  # b * H + h; int64: B*H*S*D passes 2^31
    dims = tl.arange(0, D)
    keys = first + tl.arange(0, BLOCK_N)
    kv_at = head * S * D + keys[:, None] * D + dims[None, :]
    k = tl.load(k_ptr + kv_at)
    v = tl.load(v_ptr + kv_at)
    dk = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    q_base = head * S * D
    for start in range(0, S, BLOCK_M):  # S is a multiple of 128: every block is full
        rows = start + tl.arange(0, BLOCK_M)
        q_at = q_base + rows[:, None] * D + dims[None, :]
        dk, dv = dkdv_block(dk, dv, k, v, tl.load(q_ptr + q_at), tl.load(do_ptr + q_at),
                            tl.load(lse_ptr + head * S + rows) * LOG2_E, tl.load(delta_ptr + head * S + rows),
                            scale_log2)
    tl.store(dk_ptr + kv_at, (dk * scale).to(tl.bfloat16))
    tl.store(dv_ptr + kv_at, dv.to(tl.bfloat16))


@triton.jit
def dq_block(dq, q, do, k, v, lse2, delta, scale_log2):
    """One block of keys into the query block's dQ (unscaled)."""
    p = tl.exp2(tl.dot(q, k.T) * scale_log2 - lse2[:, None])
    ds = p * (tl.dot(do, v.T) - delta[:, None])
    return tl.dot(ds.to(tl.bfloat16), k, dq)


@triton.jit
def dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, workspace_ptr, dq_ptr, S, scale_log2, scale,
              D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))
    first = tl.program_id(0) * BLOCK_M  # the first query
    head = tl.program_id(1).to(tl.int64)  # b * H + h
    dims = tl.arange(0, D)
    rows = first + tl.arange(0, BLOCK_M)
    q_at = head * S * D + rows[:, None] * D + dims[None, :]
    q = tl.load(q_ptr + q_at)
    do = tl.load(do_ptr + q_at)
    lse2 = tl.load(lse_ptr + head * S + rows) * LOG2_E
    delta = tl.load(delta_ptr + head * S + rows)
    dq = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in range(0, S, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        kv_at = head * S * D + keys[:, None] * D + dims[None, :]
        dq = dq_block(dq, q, do, tl.load(k_ptr + kv_at), tl.load(v_ptr + kv_at), lse2, delta, scale_log2)
    tl.store(dq_ptr + q_at, (dq * scale).to(tl.bfloat16))


def ptxbench_mha_bwd(Q, K, V, O, dO, LSE, dQ, dK, dV, B, H, S, D, workspace, workspace_bytes, stream):
    scale = 1.0 / math.sqrt(D)
    scale_log2 = scale * 1.4426950408889634
    # Delta: the workspace's first B*H*S floats (4*B*H*S bytes; it holds 4*B*H*S*(D+1)).
    delta_kernel[(B * H * S // 128,)](O, dO, workspace, D=D, BLOCK=128, num_warps=4)
    dkdv_kernel[(S // BLOCK_KEYS, B * H)](Q, K, V, dO, LSE, workspace, dK, dV, S, scale_log2, scale, D=D,
                                         BLOCK_N=BLOCK_KEYS, BLOCK_M=BLOCK_QUERIES, num_warps=8, num_stages=2)
    dq_kernel[(S // BLOCK_Q, B * H)](Q, K, V, dO, LSE, workspace, dQ, S, scale_log2, scale, D=D, BLOCK_M=BLOCK_Q,
                                     BLOCK_N=BLOCK_KV, num_warps=8, num_stages=2)
