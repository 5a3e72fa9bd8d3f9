# GQA backward reference, causal, Hopper paths: the plain.py kernels (Delta; dK and dV per key block
# summed over the group's query heads; dQ per query block; no atomics) with TMA tensor descriptors
# made in the kernels (UTMALDG for the Q, K, V and dO tiles, UTMASTG for dQ, dK, dV), every product on
# tl.dot (wgmma, HGMMA on sm_90a) and the long loops multi-buffered (tl.range
# num_stages: the next tiles load while this block's products run). Hq = G * Hkv query heads share
# Hkv key/value heads, query head h reading key/value head h / G; scale = 1/sqrt(D), P = exp(scale *
# Q K^T - LSE) on keys 0..i of query i (LSE natural log), Delta_i = sum_d dO[i,d] O[i,d],
# dS = P * (dO V^T - Delta), dQ = scale * dS K, dK = scale * dS^T Q, dV = P^T dO. Device-side
# descriptors need a little global scratch memory per program, which the harness's allocator provides.
import math

import triton
import triton.language as tl

LOG2_E = tl.constexpr(1.4426950408889634)  # a kernel reads globals only as constexpr
BLOCK_KEYS, BLOCK_QUERIES = 128, 32  # dkdv: keys per program, queries per step (dK, dV stay in registers)
BLOCK_Q, BLOCK_KV = 128, 64  # dq: queries per program, keys per step
STAGES = 2


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
def dkdv_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, workspace_ptr, dk_ptr, dv_ptr, q_rows, kv_rows, S, G,
                scale_log2, scale, D: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr,
                STAGES: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))
    # [B*Hq*S, D] and [B*Hkv*S, D]: S is a multiple of 128, so no tile crosses a head.
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    do_desc = tl.make_tensor_descriptor(do_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    dk_desc = tl.make_tensor_descriptor(dk_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    dv_desc = tl.make_tensor_descriptor(dv_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    first = tl.program_id(0) * BLOCK_N  # the first key; low keys (the most queries) launch first
    kv_head = tl.program_id(1)  # b * Hkv + hk; B*Hq*S < 2^31 within the constraints
    kv_row = kv_head * S + first
    keys = first + tl.arange(0, BLOCK_N)
    k = k_desc.load([kv_row, 0])
    v = v_desc.load([kv_row, 0])
    dk = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    dv = tl.zeros((BLOCK_N, D), dtype=tl.float32)
    # The G heads' query blocks at or past the keys, as one loop (one pipeline, and fewer registers
    # live than a loop per head): step i is head i // per_head, queries first + (i % per_head) *
    # BLOCK_M. The mask is applied to every block; it only removes keys on the diagonal's blocks.
    per_head = (S - first) // BLOCK_M
    for i in tl.range(0, G * per_head, num_stages=STAGES):
        head_row = (kv_head * G + i // per_head) * S  # query head b * Hq + hk * G + g of the group
        start = first + (i % per_head) * BLOCK_M
        rows = start + tl.arange(0, BLOCK_M)
        dk, dv = dkdv_block(dk, dv, k, v, q_desc.load([head_row + start, 0]), do_desc.load([head_row + start, 0]),
                            tl.load(lse_ptr + head_row + rows) * LOG2_E, tl.load(delta_ptr + head_row + rows),
                            scale_log2, keys, rows, MASKED=True)
    dk_desc.store([kv_row, 0], (dk * scale).to(tl.bfloat16))
    dv_desc.store([kv_row, 0], dv.to(tl.bfloat16))


@triton.jit
def dq_block(dq, q, do, k, v, lse2, delta, scale_log2, rows, keys, MASKED: tl.constexpr):
    """One block of keys into the query block's dQ (unscaled)."""
    p = tl.exp2(tl.dot(q, k.T) * scale_log2 - lse2[:, None])
    if MASKED:
        p = tl.where(keys[None, :] <= rows[:, None], p, 0.0)
    ds = p * (tl.dot(do, v.T) - delta[:, None])
    return tl.dot(ds.to(tl.bfloat16), k, dq)


@triton.jit
def dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, workspace_ptr, dq_ptr, q_rows, kv_rows, S, G, scale_log2, scale,
              D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    delta_ptr = workspace_ptr.to(tl.pointer_type(tl.float32))
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    do_desc = tl.make_tensor_descriptor(do_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    dq_desc = tl.make_tensor_descriptor(dq_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    first = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # the most keys first
    head = tl.program_id(1)  # b * Hq + h
    q_row = head * S + first
    kv_row = (head // G) * S  # b * Hkv + h / G == (b * Hq + h) / G, as Hq = G * Hkv
    rows = first + tl.arange(0, BLOCK_M)
    q = q_desc.load([q_row, 0])
    do = do_desc.load([q_row, 0])
    lse2 = tl.load(lse_ptr + head * S + rows) * LOG2_E
    delta = tl.load(delta_ptr + head * S + rows)
    dq = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in tl.range(0, first, BLOCK_N, num_stages=STAGES):  # keys every query of the tile attends
        dq = dq_block(dq, q, do, k_desc.load([kv_row + start, 0]), v_desc.load([kv_row + start, 0]), lse2, delta,
                      scale_log2, rows, start + tl.arange(0, BLOCK_N), MASKED=False)
    for start in tl.range(first, first + BLOCK_M, BLOCK_N):  # the diagonal
        dq = dq_block(dq, q, do, k_desc.load([kv_row + start, 0]), v_desc.load([kv_row + start, 0]), lse2, delta,
                      scale_log2, rows, start + tl.arange(0, BLOCK_N), MASKED=True)
    dq_desc.store([q_row, 0], (dq * scale).to(tl.bfloat16))


def ptxbench_gqa_bwd(Q, K, V, O, dO, LSE, dQ, dK, dV, B, Hq, Hkv, S, D, workspace, workspace_bytes, stream):
    G = Hq // Hkv
    scale = 1.0 / math.sqrt(D)
    scale_log2 = scale * 1.4426950408889634
    q_rows, kv_rows = B * Hq * S, B * Hkv * S
    # Delta: the workspace's first B*Hq*S floats (4*B*Hq*S bytes; it holds 4*B*Hq*S*(D+1)).
    delta_kernel[(q_rows // 128,)](O, dO, workspace, D=D, BLOCK=128, num_warps=4)
    dkdv_kernel[(S // BLOCK_KEYS, B * Hkv)](Q, K, V, dO, LSE, workspace, dK, dV, q_rows, kv_rows, S, G, scale_log2,
                                           scale, D=D, BLOCK_N=BLOCK_KEYS, BLOCK_M=BLOCK_QUERIES, STAGES=STAGES,
                                           num_warps=8)
    dq_kernel[(S // BLOCK_Q, B * Hq)](Q, K, V, dO, LSE, workspace, dQ, q_rows, kv_rows, S, G, scale_log2, scale, D=D,
                                      BLOCK_M=BLOCK_Q, BLOCK_N=BLOCK_KV, STAGES=STAGES, num_warps=8)
