// Issue 45: `target_executed` must be true only when the target instructions did the work: the
// problem-type warpgroup MMAs at least 0.9 of the problem's FLOPs, every other kind of math
// (older tensor-core instructions: mma.sync HMMA, sparse mma.sp, int8 IMMA, fp64 DMMA; the FMA,
// ALU, XU and FP64 pipes) at most 0.1, and the TMA's loads at least 0.9 of all the bytes the kernel
// loads, on the timed calls' hardware counters. One test per candidate (tests/gpu/candidates/
// attacks and controls, each file says what it tries): every attack is a CORRECT kernel whose target
// instructions do not do the work (target_executed a JSON false), every control an honest kernel
// that must keep target_executed true. Each test prints the record's shares and the target_run
// stage's message and timed work.
#include <gtest/gtest.h>

#include "support/cli.h"
#include "support/gpu.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

class TargetTruthOnGpu : public OnGpu {
 protected:
  static std::filesystem::path ws() {
    static auto p = fresh_workspace("gpu-target-truth");
    return p;
  }
  static json eval(const std::string& problem, const std::string& rel, std::vector<std::string> extra = {}) {
    const json r = eval_candidate(ws(), problem, rel, std::move(extra));
    if (r.is_null()) return json::object();
    report(rel, r);
    return r;
  }
  static std::string field(const json& j, const std::string& key) {
    return j.is_object() && j.contains(key) ? j.at(key).dump() : std::string("(absent)");
  }
  static void report(const std::string& rel, const json& r) {
    const json tr = stage(r, "target_run");
    const json detail = tr.is_object() ? tr.value("detail", json::object()) : json::object();
    std::cout << rel << ": " << r.value("verdict", "?") << " - " << r.value("reason", "") << "\n  target_seen "
              << field(r, "target_seen") << ", target_executed " << field(r, "target_executed")
              << ", tensor_flop_share " << field(r, "tensor_flop_share") << ", tma_byte_share "
              << field(r, "tma_byte_share")
              << "\n  target_run: " << (tr.is_object() ? tr.value("message", "") : "(none)")
              << "\n  timed work: " << field(detail, "timed_work") << "\n  checked calls: " << field(detail, "shapes")
              << "\n";
  }
  static json stage(const json& r, const std::string& name) {
    return r.is_object() && r.contains("stages") ? stage_of(r, name) : json();
  }
  // The record's value at `key`, null where absent (operator[] on a const json needs the key).
  static json at(const json& j, const std::string& key) {
    return j.is_object() && j.contains(key) ? j.at(key) : json();
  }
  static std::string target_run(const json& r) {
    const json tr = stage(r, "target_run");
    return tr.is_null() ? "(no target_run stage)" : tr.dump();
  }
  // An attack meant to be correct: judged correct, the targets seen, and no strict credit (a JSON
  // false: unknown (null) is not an answer).
  static void expect_correct_without_credit(const json& r, bool seen = true) {
    ASSERT_EQ(r.value("verdict", "?"), "correct") << r.value("reason", "") << "\n" << target_run(r);
    EXPECT_TRUE(at(r, "target_executed").is_boolean()) << target_run(r);
    EXPECT_EQ(at(r, "target_executed"), false) << target_run(r);
    if (seen) {
      EXPECT_EQ(at(r, "target_seen"), true) << target_run(r);
    }
  }
  // An attack that chooses its path per call: both paths are correct, so it should be judged
  // correct; it may be forbidden or incorrect, never an infra error and never credited.
  static void expect_no_credit_for_a_path_choice(const json& r) {
    const std::string v = r.value("verdict", "?");
    ASSERT_NE(v, "infra_error") << r.value("reason", "");
    ASSERT_TRUE(v == "correct" || v == "forbidden" || v == "incorrect") << v << ": " << r.value("reason", "");
    EXPECT_EQ(at(stage(r, "correctness"), "status"), "ok") << stage(r, "correctness").dump();
    if (v == "correct") {
      EXPECT_TRUE(at(r, "target_executed").is_boolean()) << target_run(r);
      EXPECT_EQ(at(r, "target_executed"), false) << target_run(r);
    }
  }
  // An honest control: correct and credited.
  static void expect_correct_with_credit(const json& r) {
    ASSERT_EQ(r.value("verdict", "?"), "correct") << r.value("reason", "") << "\n" << target_run(r);
    EXPECT_EQ(at(r, "target_seen"), true) << target_run(r);
    EXPECT_EQ(at(r, "target_executed"), true) << target_run(r);
  }
};

// --- Class 1: the real math on tensor-core instructions outside the target family, warpgroup MMAs
// on the same TMA-loaded tiles thrown away (tests/gpu/candidates/attacks/other_math_gemm.cuh). ---

TEST_F(TargetTruthOnGpu, GemmOnMmaSyncBesideWastedWgmmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_hmma_math_wasted_wgmma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmOnMmaSyncBesideWgmmaWastedOn62PercentIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_hmma_math_wasted_wgmma_62pct.cu"));
}

TEST_F(TargetTruthOnGpu, GemmOnSparseMmaBesideWastedWgmmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_sparse_mma_math_wasted_wgmma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmOnFp64TensorCoresBesideWastedWgmmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_dmma_math_wasted_wgmma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmOnInt8TensorCoresBesideWastedWgmmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_imma_math_wasted_wgmma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmOnPackedHalfFmaBesideWastedWgmmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_hfma2_math_wasted_wgmma.cu"));
}

// No waste: 62.5% of the k-tiles on used warpgroup MMAs, 37.5% on mma.sync (the old bounds of 50%
// both pass).
TEST_F(TargetTruthOnGpu, GemmWithThreeEighthsOfItsMathOnMmaSyncIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_hmma_share_beside_wgmma.cu"));
}

TEST_F(TargetTruthOnGpu, AttentionOnMmaSyncBesideWastedWgmmaIsNotTargetExecuted) {
  expect_correct_without_credit(
      eval("mha_fwd", "tests/gpu/candidates/attacks/attention_fwd_hmma_math_wasted_wgmma.cu"));
}

// The backward reference whole, then dQ recomputed on mma.sync over it (0.6 of the FLOPs).
TEST_F(TargetTruthOnGpu, AttentionBackwardWithDqRecomputedOnMmaSyncIsNotTargetExecuted) {
  expect_correct_without_credit(eval("mha_bwd", "tests/gpu/candidates/attacks/attention_bwd_hmma_dq_over_wgmma.cu"));
}

// --- Class 2: honest warpgroup MMAs whose operands come by cp.async or plain loads, TMA traffic
// beside them that brings few of the loaded bytes (tests/gpu/candidates/attacks/plain_operand_gemm.cuh). ---

TEST_F(TargetTruthOnGpu, GemmWithCpAsyncOperandsAndOperandSizedSideTmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_cp_async_operands_side_tma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmWithCpAsyncOperandsAndATokenTmaLoadIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_cp_async_operands_token_tma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmWithPlainLoadOperandsAndOperandSizedSideTmaIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_plain_load_operands_side_tma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmWhoseTmaStoresAreRepeatedIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_tma_store_repeated.cu"));
}

TEST_F(TargetTruthOnGpu, GemmWithATmaBoxFarLargerThanItsTensorIsNotTargetExecuted) {
  expect_correct_without_credit(eval("gemm", "tests/gpu/candidates/attacks/gemm_tma_box_over_tiny_tensor.cu"));
}

// --- Class 3: the honest path where the call looks counted, mma.sync beside wasted warpgroup MMAs
// (the FMA pipe idle) where it does not. ---

TEST_F(TargetTruthOnGpu, GemmThatChoosesItsPathByAClockReadGetsNoTargetCredit) {
  expect_no_credit_for_a_path_choice(eval("gemm", "tests/gpu/candidates/attacks/gemm_path_by_globaltimer.cu"));
}

TEST_F(TargetTruthOnGpu, GemmThatChoosesItsPathByItsArgumentsGetsNoTargetCredit) {
  expect_no_credit_for_a_path_choice(eval("gemm", "tests/gpu/candidates/attacks/gemm_path_by_argument_address.cu"));
}

TEST_F(TargetTruthOnGpu, GemmThatChoosesMmaSyncByTheStreamStateGetsNoTargetCredit) {
  expect_no_credit_for_a_path_choice(eval("gemm", "tests/gpu/candidates/attacks/gemm_path_by_stream_state_hmma.cu"));
}

TEST_F(TargetTruthOnGpu, GemmThatChoosesMmaSyncByLaunchLatencyGetsNoTargetCredit) {
  expect_no_credit_for_a_path_choice(eval("gemm", "tests/gpu/candidates/attacks/gemm_path_by_launch_latency_hmma.cu"));
}

TEST_F(TargetTruthOnGpu, AttentionThatChoosesItsPathByAClockReadGetsNoTargetCredit) {
  expect_no_credit_for_a_path_choice(
      eval("mha_fwd", "tests/gpu/candidates/attacks/attention_fwd_path_by_globaltimer.cu"));
}

// --- Controls: honest kernels with a little math off the target family, within the allowlist. ---

// The last 64-wide k-tile of every tile on mma.sync when K >= 1024 (at most 6.25% of the FLOPs).
TEST_F(TargetTruthOnGpu, GemmWithItsLastKTileOnMmaSyncKeepsTargetCredit) {
  expect_correct_with_credit(eval("gemm", "tests/gpu/candidates/controls/gemm_remainder_k_on_mma_sync.cu"));
}

// The softmax's exponential as a polynomial on the FMA pipe instead of MUFU.EX2.
TEST_F(TargetTruthOnGpu, AttentionWithAPolynomialExpKeepsTargetCredit) {
  expect_correct_with_credit(eval("mha_fwd", "tests/gpu/candidates/controls/attention_fwd_polynomial_exp.cu"));
}

}  // namespace
