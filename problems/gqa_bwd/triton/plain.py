# GQA backward reference, causal, plain Triton (FlashAttention-2 style, three kernels, no atomics):
# Hq = G * Hkv query heads share Hkv key/value heads, query head h reading key/value head h / G.
# With scale = 1/sqrt(D) and P = exp(scale * Q K^T - LSE) on keys 0..i of query i (0 beyond):
#   Delta_i = sum_d dO[i,d] O[i,d],  dS = P * (dO V^T - Delta),  dQ = scale * dS K,
#   dK = scale * dS^T Q and dV = P^T dO, both summed over the G query heads of the group.
# Q, O, dO, dQ: [B, Hq, S, D], K, V, dK, dV: [B, Hkv, S, D] bf16; LSE [B, Hq, S] fp32 (natural log).
#   1. delta_kernel: Delta into the workspace (fp32, one per query row; its contents are undefined
#      on entry, so it is written before it is read);
#   2. dkdv_kernel: one program per 128 keys of a kv head, looping over the group's heads' query
#      blocks at or past the keys (causal), P^T and dS^T recomputed per block;
#   3. dq_kernel: one program per 128 queries of a query head, looping over its key blocks.
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
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))  # the workspace's first B*Hq*S floats
    rows = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    at = rows[:, None] * D + tl.arange(0, D)[None, :]
    o = tl.load(o_ptr + at).to(tl.float32)
    do = tl.load(do_ptr + at).to(tl.float32)
    tl.store(delta_ptr + rows, tl.sum(o * do, 1))


@triton.jit
def dkdv_block(dk, dv, k, v, q, do, lse2, delta, scale_log2, keys, rows, MASKED: tl.constexpr):
    """One block of queries into the key block's dK (unscaled) and dV; rows of the transposed
    tiles are keys, columns queries."""
    p_t = tl.exp2(tl.dot(k, q.T) * scale_log2 - lse2[None, :])
    if MASKED:
        p_t = tl.where(keys[:, None] <= rows[None, :], p_t, 0.0)  # query i attends keys 0..i
    dv = tl.dot(p_t.to(tl.bfloat16), do, dv)
    ds_t = p_t * (tl.dot(v, do.T) - delta[None, :])
    dk = tl.dot(ds_t.to(tl.bfloat16), q, dk)
    return dk, dv


@triton.jit
def dkdv_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, workspace_ptr, dk_ptr, dv_ptr, S, G, scale_log2, scale,
                D: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))
    first = tl.program_id(0) * BLOCK_N  # the first key; low keys (the most queries) launch first
    kv_head = tl.program_id(1).to(tl.int64)  # b * Hkv + hk; int64: B*H*S*D passes 2^31
    dims = tl.arange(0, D)
    keys = first + tl.arange(0, BLOCK_N)
    kv_at = kv_head * S * D + keys[:, None] * D + dims[None, :]
    k = tl.load(k_ptr + kv_at)
    v = tl.load(v_ptr + kv_at)
    dk = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    # The G heads' query blocks at or past the keys, as one loop (one pipeline, and fewer registers
    # live than a loop per head): step i is head i // per_head, queries first + (i % per_head) *
    # BLOCK_M. The mask is applied to every block; it only removes keys on the diagonal's blocks.
    per_head = (S - first) // BLOCK_M
    for i in range(0, G * per_head):
        head = kv_head * G + i // per_head  # query head b * Hq + hk * G + g of the group
        rows = first + (i % per_head) * BLOCK_M + tl.arange(0, BLOCK_M)
        q_at = head * S * D + rows[:, None] * D + dims[None, :]
        dk, dv = dkdv_block(dk, dv, k, v, tl.load(q_ptr + q_at), tl.load(do_ptr + q_at),
                            tl.load(lse_ptr + head * S + rows) * LOG2_E, tl.load(delta_ptr + head * S + rows),
                            scale_log2, keys, rows, MASKED=True)
    tl.store(dk_ptr + kv_at, (dk * scale).to(tl.bfloat16))
    tl.store(dv_ptr + kv_at, dv.to(tl.bfloat16))


@triton.jit
def dq_block(dq, q, do, k, v, lse2, delta, scale_log2, rows, keys, MASKED: tl.constexpr):
    """One block of keys into the query block's dQ (unscaled)."""
    p = tl.exp2(tl.dot(q, k.T) * scale_log2 - lse2[:, None])
    if MASKED:
        p = tl.where(keys[None, :] <= rows[:, None], p, 0.0)
    ds = p * (tl.dot(do, v.T) - delta[:, None])
    return tl.dot(ds.to(tl.bfloat16), k, dq)


@triton.jit
def dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, workspace_ptr, dq_ptr, S, G, scale_log2, scale,
              D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))
    first = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # the most keys first
    head = tl.program_id(1).to(tl.int64)  # b * Hq + h
    kv_base = (head // G) * S * D  # b * Hkv + h / G == (b * Hq + h) / G, as Hq = G * Hkv
    dims = tl.arange(0, D)
    rows = first + tl.arange(0, BLOCK_M)
    q_at = head * S * D + rows[:, None] * D + dims[None, :]
    q = tl.load(q_ptr + q_at)
    do = tl.load(do_ptr + q_at)
    lse2 = tl.load(lse_ptr + head * S + rows) * LOG2_E
    delta = tl.load(delta_ptr + head * S + rows)
    dq = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in range(0, first, BLOCK_N):  # keys every query of the tile attends
        keys = start + tl.arange(0, BLOCK_N)
        kv_at = kv_base + keys[:, None] * D + dims[None, :]
        dq = dq_block(dq, q, do, tl.load(k_ptr + kv_at), tl.load(v_ptr + kv_at), lse2, delta, scale_log2, rows, keys,
                      MASKED=False)
    for start in range(first, first + BLOCK_M, BLOCK_N):  # the diagonal
        keys = start + tl.arange(0, BLOCK_N)
        kv_at = kv_base + keys[:, None] * D + dims[None, :]
        dq = dq_block(dq, q, do, tl.load(k_ptr + kv_at), tl.load(v_ptr + kv_at), lse2, delta, scale_log2, rows, keys,
                      MASKED=True)
    tl.store(dq_ptr + q_at, (dq * scale).to(tl.bfloat16))


def ptxbench_gqa_bwd(Q, K, V, O, dO, LSE, dQ, dK, dV, B, Hq, Hkv, S, D, workspace, workspace_bytes, stream):
    G = Hq // Hkv
    scale = 1.0 / math.sqrt(D)
    scale_log2 = scale * 1.4426950408889634
    # Delta: the workspace's first B*Hq*S floats (4*B*Hq*S bytes; it holds 4*B*Hq*S*(D+1)).
    delta_kernel[(B * Hq * S // 128,)](O, dO, workspace, D=D, BLOCK=128, num_warps=4)
    dkdv_kernel[(S // BLOCK_KEYS, B * Hkv)](Q, K, V, dO, LSE, workspace, dK, dV, S, G, scale_log2, scale, D=D,
                                           BLOCK_N=BLOCK_KEYS, BLOCK_M=BLOCK_QUERIES, num_warps=8, num_stages=2)
    dq_kernel[(S // BLOCK_Q, B * Hq)](Q, K, V, dO, LSE, workspace, dQ, S, G, scale_log2, scale, D=D, BLOCK_M=BLOCK_Q,
                                      BLOCK_N=BLOCK_KV, num_warps=8, num_stages=2)
