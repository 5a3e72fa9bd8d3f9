# MHA forward reference, Hopper paths: flash attention with TMA tensor descriptors made in the
# kernel (UTMALDG for the Q, K and V tiles, UTMASTG for O) and both products on tl.dot (wgmma,
# HGMMA on sm_90a); the key loop is multi-buffered (tl.range num_stages) so the next K and V tiles
# load while this block's products run. Math as plain.py: base-2 online softmax, scale 1/sqrt(D),
# LSE in natural log. Device-side descriptors need a little global scratch memory per program,
# which the harness's allocator provides (no triton.set_allocator here).
import math

import triton
import triton.language as tl

LOG2_E = 1.4426950408889634
LN_2 = tl.constexpr(0.6931471805599453)  # a kernel reads globals only as constexpr
BLOCK_M = 128


@triton.jit
def mha_fwd_tma_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, rows_total, S, scale_log2,
                       D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    # Q, K, V and O seen as [B*H*S, D]: S is a multiple of 128, so no tile crosses a head.
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_N, D])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[rows_total, D], strides=[D, 1], block_shape=[BLOCK_M, D])
    head_row = tl.program_id(1) * S  # first row of this (batch, head); B*H*S < 2^31 within the constraints
    q_row = head_row + tl.program_id(0) * BLOCK_M
    q = q_desc.load([q_row, 0])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running max, log2 units
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of 2^(s - m_i)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in tl.range(0, S, BLOCK_N, num_stages=STAGES):
        k = k_desc.load([head_row + start, 0])
        s = tl.dot(q, k.T) * scale_log2
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([head_row + start, 0])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        m_i = m_new
    o_desc.store([q_row, 0], (acc / l_i[:, None]).to(tl.bfloat16))
    rows = q_row + tl.arange(0, BLOCK_M)
    tl.store(lse_ptr + rows, (m_i + tl.log2(l_i)) * LN_2)


def ptxbench_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream):
    block_n = 128 if D == 64 else 64  # keeps the score tile and the accumulator in registers
    grid = (S // BLOCK_M, B * H)
    mha_fwd_tma_kernel[grid](Q, K, V, O, LSE, B * H * S, S, LOG2_E / math.sqrt(D), D=D, BLOCK_M=BLOCK_M,
                             BLOCK_N=block_n, STAGES=3, num_warps=8)
