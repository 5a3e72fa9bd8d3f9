# GQA forward reference, causal, Hopper paths: Hq = G * Hkv query heads share Hkv key/value heads,
# query head h reading key/value head h / G; query i attends keys 0..i; scale 1/sqrt(D); LSE in
# natural log. Flash attention with TMA tensor descriptors made in the kernel (UTMALDG for the Q, K
# and V tiles, UTMASTG for O) and both products on tl.dot (wgmma, HGMMA on sm_90a). The query tiles
# with the most keys run first, the G heads of a group next to each other in the grid (their shared
# K and V tiles come from L2); the keys left of a tile's diagonal go through a multi-buffered loop
# without a mask (tl.range num_stages), the diagonal's keys through a masked one. Device-side
# descriptors need a little global scratch memory per program, which the harness's allocator provides.
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
def gqa_fwd_tma_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, q_rows, kv_rows, S, G, scale_log2,
                       D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    # Q and O seen as [B*Hq*S, D], K and V as [B*Hkv*S, D]: S is a multiple of 128, so no tile
    # crosses a head.
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[kv_rows, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[q_rows, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    first = (tl.num_programs(0) - 1 - tl.program_id(0)) * BLOCK_M  # longest rows first
    head = tl.program_id(1)  # b * Hq + h; B*Hq*S < 2^31 within the constraints
    head_row = head * S
    kv_row = (head // G) * S  # b * Hkv + h / G == (b * Hq + h) / G, as Hq = G * Hkv
    q = q_desc.load([head_row + first, 0])
    rows = first + tl.arange(0, BLOCK_M)
    keys = tl.arange(0, BLOCK_N)
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running max, log2 units
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of 2^(s - m_i)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in tl.range(0, first, BLOCK_N, num_stages=STAGES):  # every query attends these
        acc, l_i, m_i = key_block(acc, l_i, m_i, q, k_desc.load([kv_row + start, 0]),
                                  v_desc.load([kv_row + start, 0]), scale_log2, rows, start + keys, MASKED=False)
    for start in tl.range(first, first + BLOCK_M, BLOCK_N):  # the diagonal
        acc, l_i, m_i = key_block(acc, l_i, m_i, q, k_desc.load([kv_row + start, 0]),
                                  v_desc.load([kv_row + start, 0]), scale_log2, rows, start + keys, MASKED=True)
    o_desc.store([head_row + first, 0], (acc / l_i[:, None]).to(tl.bfloat16))
    tl.store(lse_ptr + head_row + rows, (m_i + tl.log2(l_i)) * LN_2)


def ptxbench_gqa_fwd(Q, K, V, O, LSE, B, Hq, Hkv, S, D, stream):
    block_n = 128 if D == 64 else 64  # keeps the score tile and the accumulator in registers
    grid = (S // BLOCK_M, B * Hq)
    gqa_fwd_tma_kernel[grid](Q, K, V, O, LSE, B * Hq * S, B * Hkv * S, S, Hq // Hkv, LOG2_E / math.sqrt(D), D=D,
                             BLOCK_M=BLOCK_M, BLOCK_N=block_n, STAGES=3, num_warps=8)
