# MHA forward reference, plain Triton (flash attention): for each (batch, head),
# O = softmax(scale * Q K^T) V and LSE = log(sum_j exp(scale * Q K^T)), scale = 1/sqrt(D), no mask.
# Q, K, V, O: [B, H, S, D] bf16 row-major; LSE: [B, H, S] fp32. One program per 128 queries of one
# head; an online softmax over 64-key blocks in base 2 (log2(e) folded into the scale); both
# products are tl.dot (wgmma on sm_90a), P cast to bf16 for the second.
import math

import triton
import triton.language as tl

LOG2_E = 1.4426950408889634
LN_2 = tl.constexpr(0.6931471805599453)  # a kernel reads globals only as constexpr


@triton.jit
def mha_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, S, scale_log2,
                   D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)  # b * H + h; int64: B*H*S*D passes 2^31
    base = head * S * D
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, D)
    keys = tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + base + rows[:, None] * D + dims[None, :])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running max, log2 units
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of 2^(s - m_i)
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    # S is a multiple of 128: every key block is full.
    for start in range(0, S, BLOCK_N):
        kv = base + (start + keys)[:, None] * D + dims[None, :]
        k = tl.load(k_ptr + kv)
        s = tl.dot(q, k.T) * scale_log2
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + kv)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        m_i = m_new
    tl.store(o_ptr + base + rows[:, None] * D + dims[None, :], (acc / l_i[:, None]).to(tl.bfloat16))
    tl.store(lse_ptr + head * S + rows, (m_i + tl.log2(l_i)) * LN_2)


def ptxbench_mha_fwd(Q, K, V, O, LSE, B, H, S, D, stream):
    scale_log2 = LOG2_E / math.sqrt(D)
    grid = (S // 128, B * H)
    mha_fwd_kernel[grid](Q, K, V, O, LSE, S, scale_log2, D=D, BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3)
