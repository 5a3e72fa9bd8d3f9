# MHA forward reference with a causal mask, Hopper paths: flash attention with TMA tensor descriptors
# made in the kernel (UTMALDG for the Q, K and V tiles, UTMASTG for O) and both products on tl.dot
# (wgmma, HGMMA on sm_90a). Query i attends keys 0..i; scale 1/sqrt(D); LSE in natural log. The
# query tiles with the most keys run first; the keys left of a tile's diagonal go through a
# multi-buffered loop without a mask (tl.range num_stages: the next K and V tiles load while this
# block's products run), the diagonal's keys through a masked one. Device-side descriptors need a
# little global scratch memory per program, which the harness's allocator provides.
import math

import triton
import triton.language as tl

LOG2_E = 1.4426950408889634
LN_2 = tl.constexpr(0.6931471805599453)  # a kernel reads globals only as constexpr
BLOCK_M = 128


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
def mha_fwd_causal_tma_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, rows_total, S, scale_log2,
                              D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    # Q, K, V and O seen as [B*H*S, D]: S is a multiple of 128, so no tile crosses a head.
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    first = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # longest rows first
    head_row = tl.program_id(1) * S  # first row of this (batch, head); B*H*S < 2^31 within the constraints
    q = q_desc.load([head_row + first, 0])
    rows = first + tl.arange(0, BLOCK_M)
    keys = tl.arange(0, BLOCK_N)
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running max, log2 units
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of 2^(s - m_i)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in tl.range(0, first, BLOCK_N, num_stages=STAGES):  # every query attends these
        acc, l_i, m_i = key_block(acc, l_i, m_i, q, k_desc.load([head_row + start, 0]),
                                  v_desc.load([head_row + start, 0]), scale_log2, rows, start + keys, MASKED=False)
    for start in tl.range(first, first + BLOCK_M, BLOCK_N):  # the diagonal
        acc, l_i, m_i = key_block(acc, l_i, m_i, q, k_desc.load([head_row + start, 0]),
                                  v_desc.load([head_row + start, 0]), scale_log2, rows, start + keys, MASKED=True)
    o_desc.store([head_row + first, 0], (acc / l_i[:, None]).to(tl.bfloat16))
    tl.store(lse_ptr + head_row + rows, (m_i + tl.log2(l_i)) * LN_2)


def ptxbench_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream):
    block_n = 128 if D == 64 else 64  # keeps the score tile and the accumulator in registers
    grid = (S // BLOCK_M, B * H)
    mha_fwd_causal_tma_kernel[grid](Q, K, V, O, LSE, B * H * S, S, LOG2_E / math.sqrt(D), D=D, BLOCK_M=BLOCK_M,
                                    BLOCK_N=block_n, STAGES=3, num_warps=8)
