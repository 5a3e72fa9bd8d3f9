# GQA forward reference, causal, plain Triton (flash attention): Hq = G * Hkv query heads share Hkv
# key/value heads, query head h reading key/value head h / G. For each (batch, query head),
# O = softmax(scale * Q K^T + mask) V and LSE = log(sum_{j<=i} exp(scale * q_i . k_j)), scale =
# 1/sqrt(D), query i attending keys 0..i. Q, O: [B, Hq, S, D], K, V: [B, Hkv, S, D] bf16 row-major;
# LSE: [B, Hq, S] fp32, natural log. One program per 128 queries of one query head, the last query
# tiles (the most keys) first, and the G heads of a group next to each other in the grid so their
# shared K and V tiles are read from L2; an online softmax over 64-key blocks in base 2. The key
# blocks left of the tile's diagonal need no mask; only the two on it are masked. Both products are
# tl.dot (wgmma on sm_90a), P cast to bf16 for the second.
import math

import triton
import triton.language as tl

LOG2_E = 1.4426950408889634
LN_2 = tl.constexpr(0.6931471805599453)  # a kernel reads globals only as constexpr


@triton.jit
def key_block(acc, l_i, m_i, q, k, v, scale_log2, rows, keys, MASKED: tl.constexpr):
    """One block of keys into the running (acc, l_i, m_i); masked keys (key > query) weigh 0."""
    s = tl.dot(q, k.T) * scale_log2
    if MASKED:
        s = tl.where(keys[None, :] <= rows[:, None], s, float("-inf"))
    # Finite: every row has seen its key 0 or its own key before a block masks it whole.
    m_new = tl.maximum(m_i, tl.max(s, 1))
    p = tl.exp2(s - m_new[:, None])
    alpha = tl.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
    return acc, l_i, m_new


@triton.jit
def gqa_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, S, G, scale_log2,
                   D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    first = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # longest rows first
    head = tl.program_id(1).to(tl.int64)  # b * Hq + h; int64: B*Hq*S*D passes 2^31
    # b * Hkv + h / G == (b * Hq + h) / G, as Hq = G * Hkv.
    base = head * S * D
    kv_base = (head // G) * S * D
    rows = first + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, D)
    keys = tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + base + rows[:, None] * D + dims[None, :])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running max, log2 units
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of 2^(s - m_i)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    # Keys 0..first-1: every query of the tile attends them. S is a multiple of 128: blocks are full.
    for start in range(0, first, BLOCK_N):
        kv = kv_base + (start + keys)[:, None] * D + dims[None, :]
        acc, l_i, m_i = key_block(acc, l_i, m_i, q, tl.load(k_ptr + kv), tl.load(v_ptr + kv), scale_log2,
                                  rows, start + keys, MASKED=False)
    # Keys first..first+BLOCK_M-1: the diagonal, masked.
    for start in range(first, first + BLOCK_M, BLOCK_N):
        kv = kv_base + (start + keys)[:, None] * D + dims[None, :]
        acc, l_i, m_i = key_block(acc, l_i, m_i, q, tl.load(k_ptr + kv), tl.load(v_ptr + kv), scale_log2,
                                  rows, start + keys, MASKED=True)
    tl.store(o_ptr + base + rows[:, None] * D + dims[None, :], (acc / l_i[:, None]).to(tl.bfloat16))
    tl.store(lse_ptr + head * S + rows, (m_i + tl.log2(l_i)) * LN_2)


def ptxbench_gqa_fwd(Q, K, V, O, LSE, B, Hq, Hkv, S, D, stream):
    grid = (S // 128, B * Hq)
    gqa_fwd_kernel[grid](Q, K, V, O, LSE, S, Hq // Hkv, LOG2_E / math.sqrt(D), D=D, BLOCK_M=128, BLOCK_N=64,
                         num_warps=8, num_stages=3)
