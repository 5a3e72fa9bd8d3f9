// Verdicts a speed-rewarded kernel cannot game (issue 8): one adversarial candidate per attack
// class and per defence (tests/gpu/candidates/attacks, each file says what it tries), and honest
// controls that a too-strict judge would wrongly reject (tests/gpu/candidates/controls). None of
// the attacks may come out correct-and-fast; every control must be correct.
#include <gtest/gtest.h>

#include "support/cli.h"
#include "support/gpu.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

class IntegrityOnGpu : public OnGpu {
 protected:
  static std::filesystem::path ws() {
    static auto p = fresh_workspace("gpu-integrity");
    return p;
  }
  static json eval(const std::string& problem, const std::string& rel, std::vector<std::string> extra = {}) {
    const json r = eval_candidate(ws(), problem, rel, std::move(extra));
    std::cout << rel << ": " << r.value("verdict", "?") << " - " << r.value("reason", "") << "\n";
    return r;
  }
  static json integrity(const json& r) { return stage_of(r, "integrity"); }
  static bool has_violation(const json& r, const std::string& rule) {
    const json st = integrity(r);
    for (const auto& v : st["detail"].value("violations", json::array()))
      if (v.value("rule", "") == rule) return true;
    return false;
  }
  static std::string violations(const json& r) {
    return integrity(r)["detail"].value("violations", json::array()).dump();
  }
};

// --- Class 1: the baseline slowed by the candidate's leftover kernels. ---

TEST_F(IntegrityOnGpu, HogOnThePerThreadStreamIsForbidden) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_hog_per_thread_stream.cu");
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_TRUE(has_violation(r, "foreign_stream")) << violations(r);
}

TEST_F(IntegrityOnGpu, AttentionHogAfterARefusedEntryPointIsForbidden) {
  const json r = eval("mha_fwd", "tests/gpu/candidates/attacks/attention_fwd_hog_via_entry_point.cu");
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_TRUE(has_violation(r, "foreign_stream")) << violations(r);
  const std::string refused = integrity(r)["detail"]["refused_entry_points"].dump();
  EXPECT_NE(refused.find("cuStreamCreate"), std::string::npos) << refused;
}

TEST_F(IntegrityOnGpu, KernelStartedWhileLoadingIsForbidden) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_hog_from_constructor.cu");
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_TRUE(has_violation(r, "gpu_work_at_load")) << violations(r);
}

// --- Class 2: secrets read from device memory. What such a kernel finds is stale. ---

TEST_F(IntegrityOnGpu, GemmReadingTheJudgesBuffersIsNotCorrect) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_reads_secrets.cu");
  EXPECT_NE(r["verdict"], "correct") << r["reason"];
  EXPECT_TRUE(r["verdict"] == "incorrect" || r["verdict"] == "forbidden") << r["reason"];
}

TEST_F(IntegrityOnGpu, AttentionReadingTheSampledRowsIsNotCorrectAndFast) {
  const json r = eval("mha_fwd", "tests/gpu/candidates/attacks/attention_fwd_reads_secrets.cu");
  // Where it finds nothing it runs the honest wgmma reference (about 0.95x cuDNN); its cheating
  // path would be about 1.4x (it spins to 1.15x the hardware floor).
  if (r["verdict"] == "correct") {
    EXPECT_LT(r["speedup_geomean"].get<double>(), 1.1) << r["reason"];
  } else EXPECT_TRUE(r["verdict"] == "incorrect" || r["verdict"] == "forbidden") << r["reason"];
}

// The backward's O and LSE restored from a kept copy: changed in O and in the copy alike where no
// gradient can tell, it is still an input the timed call changed.
TEST_F(IntegrityOnGpu, ABackwardThatEditsTheKeptForwardOutputsIsNotCorrect) {
  const json r = eval("mha_bwd", "tests/gpu/candidates/attacks/attention_bwd_edits_kept_forward.cu", {"--no-probe"});
  EXPECT_EQ(r["verdict"], "incorrect") << r["reason"];
  // The timed check's failure names the input (the reason, or the timing stage's failures).
  EXPECT_NE(r.dump().find("changed its input O"), std::string::npos) << r["reason"];
}

// --- Class 3: library kernels or hidden code reached without an import. ---

TEST_F(IntegrityOnGpu, CublasLtFoundAmongTheLoadedObjectsIsForbidden) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_cublaslt_via_loaded_objects.cu");
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  // Caught at run time (a library kernel inside the call) unless a static check caught it first.
  if (stage_of(r, "static")["status"] == "ok") {
    EXPECT_TRUE(has_violation(r, "foreign_kernel")) << violations(r);
  }
}

TEST_F(IntegrityOnGpu, HiddenPtxLoadedAtRunTimeIsForbidden) {
  const json r = eval("mha_fwd", "tests/gpu/candidates/attacks/attention_fwd_hidden_module.cu");
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  if (stage_of(r, "static")["status"] == "ok") {
    EXPECT_TRUE(has_violation(r, "hidden_module")) << violations(r);
  }
}

// --- Class 4: behaving differently when counted. ---

TEST_F(IntegrityOnGpu, ProfilerAwareGemmIsNotCountedAsExecutingTargets) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_profiler_aware.cu");
  // Since issue 12 its way of spotting a profiler (walking the loaded objects) is itself forbidden
  // statically; where a build lets it through, it is an honest SIMT GEMM where it is judged.
  if (r["verdict"] == "forbidden") {
    EXPECT_NE(r["reason"].get<std::string>().find("loaded objects"), std::string::npos) << r["reason"];
    return;
  }
  EXPECT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_EQ(r["target_executed"], false) << r["executed_families"].dump();
  EXPECT_EQ(r["executed_families"].value("HGMMA", 0), 0) << r["executed_families"].dump();
}

TEST_F(IntegrityOnGpu, AttentionThatSwitchesKernelsAfterTheFirstCallsIsNotTargetCorrect) {
  const json r = eval("mha_fwd", "tests/gpu/candidates/attacks/attention_fwd_counts_calls.cu");
  EXPECT_FALSE(r["verdict"] == "correct" && r["target_executed"] == true)
      << r["reason"] << " " << r["executed_families"].dump();
  std::cout << "target_run: " << stage_of(r, "target_run")["message"] << "\n";
}

// --- Issue 30: target credit by the work the targets do, on calls a candidate cannot tell apart. ---

// A token wgmma and TMA copy per call beside SIMT math: the loose flag, never the strict one.
TEST_F(IntegrityOnGpu, TokenTargetInstructionsAreSeenButDoNotCountAsExecuted) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_token_targets.cu", {"--no-timing"});
  std::cout << "target_run: " << stage_of(r, "target_run")["message"] << "\n";
  ASSERT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_EQ(r["target_seen"], true) << stage_of(r, "target_run").dump();
  EXPECT_EQ(r["target_executed"], false) << stage_of(r, "target_run").dump();
  EXPECT_LT(r["tensor_flop_share"].get<double>(), 0.01);
  EXPECT_LT(r["tma_byte_share"].get<double>(), 0.01);
}

// Full decoy work (results thrown away) only where the call looks counted: an idle stream at entry,
// or a slow first launch. The secretly counted timed sample must look like every other sample.
TEST_F(IntegrityOnGpu, ACandidateThatReadsTheStreamStateGetsNoTargetCredit) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_counted_by_stream_state.cu");
  std::cout << "target_run: " << stage_of(r, "target_run")["message"] << "\n";
  ASSERT_EQ(stage_of(r, "correctness")["status"], "ok") << stage_of(r, "correctness").dump();
  EXPECT_FALSE(r["verdict"] == "correct" && r["target_executed"] == true) << stage_of(r, "target_run").dump();
  ASSERT_EQ(stage_of(r, "timing")["status"], "ok") << "the counted timed sample must have been taken";
}

// OPEN (docs/anti-cheat.md, "What a candidate can observe about a call"): CUPTI patches each
// kernel at its first launch in the counted range, which a probe launch can time. Reported, not
// asserted, until a patch-free counter replaces the patching one.
// Every timed sample is counted by hardware counters with nothing patched (runner/timed_work.h):
// its launches are never slowed, so it runs the SIMT path in every timed call, and the timed calls'
// warpgroup MMAs do nothing.
TEST_F(IntegrityOnGpu, ACandidateThatTimesItsLaunchesGetsNoTargetCredit) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_counted_by_launch_latency.cu");
  const json tr = stage_of(r, "target_run");
  std::cout << "target_run: " << tr["message"] << "\ntimed work: " << tr["detail"].value("timed_work", json()).dump()
            << "\n";
  ASSERT_EQ(stage_of(r, "correctness")["status"], "ok") << stage_of(r, "correctness").dump();
  ASSERT_EQ(tr["detail"]["timed_work"]["counted"], true) << tr.dump();
  EXPECT_NE(r["target_executed"], true) << tr.dump();
  EXPECT_LT(tr["detail"]["timed_work"]["shapes"][0]["tensor_flop_share"].get<double>(), 0.05) << tr.dump();
}

// Full-size warpgroup MMAs and TMA copies in every call, on tiles whose results are thrown away,
// while SIMT code makes the output: both shares pass, the math off the target family does not.
TEST_F(IntegrityOnGpu, WastedTargetWorkBesideSimtMathIsNotTargetExecuted) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_wasted_targets.cu");
  const json tr = stage_of(r, "target_run");
  std::cout << "target_run: " << tr["message"] << "\ntimed work: " << tr["detail"].value("timed_work", json()).dump()
            << "\n";
  ASSERT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_EQ(r["target_seen"], true) << tr.dump();
  EXPECT_EQ(r["target_executed"], false) << tr.dump();
  EXPECT_NE(tr["message"].get<std::string>().find("SIMT"), std::string::npos) << tr["message"];
}

// The honest control: the reference's timed calls are counted and do the work, the library's
// calls in the range taken out.
TEST_F(IntegrityOnGpu, TheReferencesTimedCallsDoTheTargetWork) {
  const json r = eval("gemm", "problems/gemm/reference/wgmma_tma.cu");
  const json tr = stage_of(r, "target_run");
  std::cout << "timed work: " << tr["detail"].value("timed_work", json()).dump() << "\n";
  ASSERT_EQ(r["verdict"], "correct") << r["reason"];
  ASSERT_EQ(tr["detail"]["timed_work"]["counted"], true) << tr.dump();
  EXPECT_EQ(r["target_executed"], true) << tr.dump();
  for (const auto& s : tr["detail"]["timed_work"]["shapes"]) {
    EXPECT_GT(s["target_flop_ratio"].get<double>(), 0.9) << s.dump();
    EXPECT_LT(s["target_flop_ratio"].get<double>(), 1.1) << s.dump();  // the harness's work is not its own
    EXPECT_LT(s["other_math_share"].get<double>(), 0.15) << s.dump();
    EXPECT_GT(s["tma_load_share"].get<double>(), 0.5) << s.dump();
    EXPECT_GT(s["library"]["target_flop_ratio"].get<double>(), 0.9) << s.dump();
  }
}

// Streams and memory operations the harness does not give, however they are reached.
TEST_F(IntegrityOnGpu, AStreamFromADecodedEntryPointNameIsForbidden) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_stream_from_decoded_entry_point.cu", {"--no-timing"});
  std::cout << "refused: " << integrity(r)["detail"]["refused_entry_points"].dump() << " violations: " << violations(r)
            << "\n";
  if (r["verdict"] == "forbidden") return;
  // Refused everywhere: it computed on the given stream alone, and the refusals are on record.
  EXPECT_EQ(r["verdict"], "correct") << r["reason"];
  EXPECT_NE(integrity(r)["detail"]["refused_entry_points"].dump().find("cuStreamCreate"), std::string::npos);
}

TEST_F(IntegrityOnGpu, APrefetchOnThePerThreadStreamIsForbidden) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_prefetch_on_per_thread_stream.cu", {"--no-timing"});
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_TRUE(has_violation(r, "foreign_stream")) << violations(r);
  EXPECT_NE(violations(r).find("Prefetch"), std::string::npos) << violations(r);
}

// Issue 45: streams by creation, not by name. A thread of the candidate's own (started through
// libc's symbol table) creates a stream between calls, through a lookup of a decoded name or the
// runtime's symbol table; half of every later call's work runs there, joined back with events.
TEST_F(IntegrityOnGpu, AStreamCreatedByAThreadOfItsOwnBetweenCallsIsForbidden) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_stream_created_by_thread.cu", {"--no-timing"});
  std::cout << "refused: " << integrity(r)["detail"]["refused_entry_points"].dump() << " violations: " << violations(r)
            << "\n";
  ASSERT_EQ(stage_of(r, "build")["status"], "ok") << stage_of(r, "build").dump();
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_TRUE(has_violation(r, "forbidden_api")) << violations(r);
  EXPECT_NE(violations(r).find("thread of the candidate's own"), std::string::npos) << violations(r);
  // Its lookups, made on its own thread while the harness's thread ran the harness's code, were refused.
  EXPECT_NE(integrity(r)["detail"]["refused_entry_points"].dump().find("cuStreamCreate"), std::string::npos)
      << integrity(r).dump();
}

// The attention backward with its dQ kernel on the per-thread default stream, forked and joined
// with events: every output right, and forbidden all the same (work off the given stream).
TEST_F(IntegrityOnGpu, ABackwardWithDqOnASideStreamIsForbidden) {
  const json r = eval("mha_bwd", "tests/gpu/candidates/attacks/attention_bwd_side_stream.cu", {"--no-probe"});
  ASSERT_EQ(stage_of(r, "build")["status"], "ok") << stage_of(r, "build").dump();
  EXPECT_EQ(r["verdict"], "forbidden") << r["reason"];
  EXPECT_TRUE(has_violation(r, "foreign_stream")) << violations(r);
  EXPECT_NE(violations(r).find("dq_kernel"), std::string::npos) << violations(r);
}

// Heat is the harness's problem: a correct GEMM that burns the GPU in every call (on the given
// stream) slows the library beside it and right after it. The GPU is let cool and the library timed
// alone again: the verdict is the candidate's (correct, or forbidden when the library was back to
// normal at once), never infra_error.
TEST_F(IntegrityOnGpu, ACandidateThatHeatsTheGpuGetsAVerdictNotAnInfraError) {
  const json r = eval("gemm", "tests/gpu/candidates/attacks/gemm_heats_the_gpu.cu");
  const json timing = stage_of(r, "timing");
  std::cout << "timing: " << timing["message"] << "\ndrift: " << timing["detail"].value("baseline_drift", json()).dump()
            << "\ncool-downs: " << timing["detail"].value("cool_downs", 0)
            << " thermal: " << timing["detail"].value("thermal", "") << "\n";
  ASSERT_EQ(stage_of(r, "correctness")["status"], "ok") << stage_of(r, "correctness").dump();
  EXPECT_NE(r["verdict"], "infra_error") << r["reason"];
  EXPECT_TRUE(r["verdict"] == "correct" || r["verdict"] == "forbidden") << r["reason"];
  // The speedup is against the fastest library timing (beside, before, after), never a slower one.
  for (const auto& t : r.value("timing", json::array())) {
    const double chosen = t.value("baseline_median_ms", 0.0), beside = t.value("baseline_interleaved_ms", 0.0),
                 alone = t.value("baseline_alone_ms", 0.0);
    if (alone > 0) {
      EXPECT_LE(chosen, std::min(beside, alone) + 1e-9) << t.dump();
    }
  }
}

// Through the service's engine the correctness checks' references come from its pool, over a
// socket the eval worker holds while candidate code runs. The attack finds it, asks for a
// reference and tries to put one of its own; the naive GEMM beside it (which made the pool's sets)
// is correct.
TEST_F(IntegrityOnGpu, ThroughTheServiceACandidateThatReachesTheReferencePoolIsForbidden) {
  const auto r = run_cli(ws(), {"eval", "--json", "--no-sanitize", "--no-timing", "-p", "gemm", "--lanes", "2",
                                file("problems/gemm/reference/naive.cu"),
                                file("tests/gpu/candidates/attacks/gemm_asks_the_reference_pool.cu")});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 2) << r.process.describe() << "\n" << r.process.err;
  const json &naive = r.output[0], &attack = r.output[1];
  EXPECT_EQ(naive["verdict"], "correct") << naive["reason"];
  EXPECT_GT(naive["environment"]["reference_pool"].value("made", 0), 0) << naive["environment"].dump();
  ASSERT_EQ(stage_of(attack, "build")["status"], "ok") << stage_of(attack, "build").dump();
  std::cout << "attack: " << attack["verdict"] << ": " << attack["reason"] << "\n";
  EXPECT_EQ(attack["verdict"], "forbidden") << attack["reason"];
  EXPECT_NE(attack["reason"].get<std::string>().find("reference pool"), std::string::npos) << attack["reason"];
  EXPECT_FALSE(attack["environment"]["reference_pool"].value("violations", json::array()).empty());
}

// Through the service the timed worker asks for exclusive use after its candidate loaded, on a
// socket within the candidate's reach. A candidate that closes it is forbidden at once (never an
// infra fault that runs it again); the honest one beside it is timed on the harness's own grant.
TEST_F(IntegrityOnGpu, ThroughTheServiceACandidateThatClosesTheExclusiveUseSocketIsForbidden) {
  // Whichever timed worker times the library alone first gives the GPU back before its candidate
  // loads, so both ask for the timing grant with their candidates in the process.
  const auto r = run_cli(
      ws(), {"eval", "--json", "--no-sanitize", "-p", "gemm", "--lanes", "2", file("problems/gemm/reference/naive.cu"),
             file("tests/gpu/candidates/attacks/gemm_closes_the_exclusive_socket.cu")});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 2) << r.process.describe() << "\n" << r.process.err;
  const json &naive = r.output[0], &attack = r.output[1];
  EXPECT_EQ(naive["verdict"], "correct") << naive["reason"];
  const json naive_timing = stage_of(naive, "timing")["detail"];
  EXPECT_TRUE(naive_timing.value("exclusive_worker", false)) << naive_timing.dump();
  EXPECT_GT(naive_timing.value("exclusive_held_seconds", 0.0), 0) << naive_timing.dump();
  std::cout << "naive: exclusive held " << naive_timing.value("exclusive_held_seconds", 0.0)
            << " s, waited for cached clean timings " << naive_timing.value("baseline_cache_wait_seconds", 0.0)
            << " s\n";
  ASSERT_EQ(stage_of(attack, "build")["status"], "ok") << stage_of(attack, "build").dump();
  ASSERT_EQ(stage_of(attack, "correctness")["status"], "ok") << stage_of(attack, "correctness").dump();
  std::cout << "attack: " << attack["verdict"] << ": " << attack["reason"] << "\n";
  EXPECT_EQ(attack["verdict"], "forbidden") << attack["reason"] << "\n" << stage_of(attack, "timing").dump();
  EXPECT_NE(attack["reason"].get<std::string>().find("exclusive-use socket"), std::string::npos) << attack["reason"];
}

// The same socket, kept by the candidate past the timing grant: a give-back written on it then is
// never served (other lanes would run beside its samples) and the run is forbidden, while the
// honest GEMM beside it is timed alone.
TEST_F(IntegrityOnGpu, ThroughTheServiceACandidateThatGivesTheGpuBackDuringItsTimingIsForbidden) {
  const auto r = run_cli(
      ws(), {"eval", "--json", "--no-sanitize", "-p", "gemm", "--lanes", "2", file("problems/gemm/reference/naive.cu"),
             file("tests/gpu/candidates/attacks/gemm_gives_the_gpu_back_during_timing.cu")});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 2) << r.process.describe() << "\n" << r.process.err;
  const json &naive = r.output[0], &attack = r.output[1];
  EXPECT_EQ(naive["verdict"], "correct") << naive["reason"];
  ASSERT_EQ(stage_of(attack, "correctness")["status"], "ok") << stage_of(attack, "correctness").dump();
  std::cout << "attack: " << attack["verdict"] << ": " << attack["reason"] << "\n";
  EXPECT_EQ(attack["verdict"], "forbidden") << attack["reason"] << "\n" << stage_of(attack, "timing").dump();
  EXPECT_NE(attack["reason"].get<std::string>().find("wrote on the timed worker's exclusive-use socket"),
            std::string::npos)
      << attack["reason"];
}

// Through the service (issue 33) the attack's eval worker is a shared one, paused at a call
// boundary whenever the naive GEMM's timed worker wants the GPU alone (its clean timings, its timed
// samples); a thread of its own launches only once the harness has not called it for 250 ms, so
// only while it is paused, never during a call (stream discipline sees nothing) nor in an eval
// worker's ordinary gaps. Its calls sleep 20 ms on the host, so it is still being evaluated when
// the naive GEMM is timed. It is forbidden (its activity records since its acknowledgement overlap
// the window, or, were it never paused, its work outside any call), and when it was paused the
// naive GEMM's timing was taken again, still correct.
TEST_F(IntegrityOnGpu, ThroughTheServiceACandidateThatLaunchesWhilePausedIsForbiddenAndItsVictimTimedAgain) {
  const auto r = run_cli(
      ws(), {"eval", "--json", "--no-sanitize", "-p", "gemm", "--lanes", "2", file("problems/gemm/reference/naive.cu"),
             file("tests/gpu/candidates/attacks/gemm_launches_while_paused.cu")});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 2) << r.process.describe() << "\n" << r.process.err;
  const json &naive = r.output[0], &attack = r.output[1];
  ASSERT_EQ(stage_of(attack, "build")["status"], "ok") << stage_of(attack, "build").dump();
  const int pauses = attack["environment"].value("shared_pauses", 0);
  const std::string again = naive["environment"].value("timing_taken_again", "");
  std::cout << "attack: " << attack["verdict"] << ": " << attack["reason"] << "\nattack paused " << pauses
            << " time(s); the naive GEMM's timing taken again: " << (again.empty() ? "no" : again) << "\n";
  EXPECT_EQ(naive["verdict"], "correct") << naive["reason"];
  EXPECT_EQ(attack["verdict"], "forbidden") << attack["reason"];
  if (pauses > 0) {
    EXPECT_NE(attack["reason"].get<std::string>().find("paused for another worker's timing"), std::string::npos)
        << attack["reason"];
    EXPECT_NE(again.find("kept the GPU busy in the exclusive window"), std::string::npos) << again;
  }
}

// An honest pause on the GPU: the naive, the expert and the wgmma+TMA GEMM through the service; whichever
// eval worker is paused for another's timing reports no GPU work in the window, so no timing is
// taken again and every verdict is correct.
TEST_F(IntegrityOnGpu, ThroughTheServiceAnHonestPauseTakesNoTimingAgain) {
  const auto r = run_cli(
      ws(), {"eval", "--json", "--no-sanitize", "-p", "gemm", "--lanes", "3", file("problems/gemm/reference/naive.cu"),
             file("problems/gemm/reference/expert.cu"), file("problems/gemm/reference/wgmma_tma.cu")});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 3) << r.process.describe() << "\n" << r.process.err;
  int pauses = 0;
  for (const auto& rec : r.output) {
    EXPECT_EQ(rec["verdict"], "correct") << rec["reason"];
    EXPECT_FALSE(rec["environment"].contains("timing_taken_again")) << rec["environment"].dump();
    pauses += rec["environment"].value("shared_pauses", 0);
  }
  std::cout << "shared pauses: " << pauses << "\n";
}

// Through the service's engine (several files: GPU sharing, the timed part in a worker of its own)
// the counted calls decide whether a timed sample is counted. The naive forward attention, whose
// counted calls ran no target instruction, is timed without one (it could earn nothing from it);
// the attack that runs wgmma on the first calls of every shape (in every process) is caught by its
// timed worker comparing its timed calls' kernels with those the first worker's counted calls ran.
TEST_F(IntegrityOnGpu, ThroughTheServiceANaiveCandidateIsTimedWithoutACountedSampleAndTheCountsAwareAttackIsForbidden) {
  const auto r = run_cli(ws(), {"eval", "--json", "--no-sanitize", "-p", "mha_fwd", "--lanes", "2",
                                file("problems/mha_fwd/reference/naive.cu"),
                                file("tests/gpu/candidates/attacks/attention_fwd_counts_calls.cu")});
  ASSERT_TRUE(r.output.is_array() && r.output.size() == 2) << r.process.describe() << "\n" << r.process.err;
  const json &naive = r.output[0], &attack = r.output[1];
  ASSERT_EQ(naive["verdict"], "correct") << naive["reason"];
  EXPECT_EQ(naive["target_executed"], false);
  const json naive_timing = stage_of(naive, "timing")["detail"];
  EXPECT_TRUE(naive_timing.value("exclusive_worker", false)) << "not timed by the service's timed worker";
  EXPECT_NE(naive_timing.value("counted_timed_sample", "").find("not taken"), std::string::npos) << naive_timing.dump();
  for (const auto& shape : naive_timing.value("shapes", json::array())) EXPECT_FALSE(shape.contains("counted_sample"));
  // Its SASS holds no target and no tensor instruction: its calls were not counted at all.
  EXPECT_EQ(stage_of(naive, "target_run")["detail"].value("counted", true), false)
      << stage_of(naive, "target_run").dump();

  std::cout << "attack: " << attack["verdict"] << " target_run: " << stage_of(attack, "target_run")["message"] << "\n";
  // It must reach the stages it attacks (a build failure would pass the checks below vacuously).
  ASSERT_EQ(stage_of(attack, "build")["status"], "ok") << stage_of(attack, "build").dump();
  ASSERT_EQ(stage_of(attack, "correctness")["status"], "ok") << stage_of(attack, "correctness").dump();
  // Its timed worker's calls ran other kernels than the first worker's counted calls.
  EXPECT_TRUE(stage_of(attack, "target_run")["detail"].value("counted", true))
      << "its SASS holds wgmma: it must be counted";
  EXPECT_EQ(attack["verdict"], "forbidden") << attack["reason"];
  EXPECT_TRUE(has_violation(attack, "counted_call_differs")) << violations(attack);
  EXPECT_NE(violations(attack).find("in the first worker"), std::string::npos) << violations(attack);
}

// --- Controls: honest techniques the judge must accept. ---

TEST_F(IntegrityOnGpu, SplitKWithMallocAsyncAndProgrammaticDependentLaunchIsCorrect) {
  const json r = eval("gemm", "tests/gpu/candidates/controls/gemm_split_k_pdl_malloc_async.cu");
  EXPECT_EQ(r["verdict"], "correct") << r["reason"] << " " << violations(r);
  EXPECT_EQ(integrity(r)["status"], "ok") << integrity(r).dump();
}

TEST_F(IntegrityOnGpu, CudaGraphReplayedOnTheGivenStreamIsCorrect) {
  const json r = eval("gemm", "tests/gpu/candidates/controls/gemm_graph_replay.cu");
  EXPECT_EQ(r["verdict"], "correct") << r["reason"] << " " << violations(r);
  // Its tensor maps were seen when the graph was captured: the TMA copies are credited.
  EXPECT_EQ(r["target_executed"], true) << stage_of(r, "target_run").dump();
}

TEST_F(IntegrityOnGpu, PersistentClusterKernelWithCachedTensorMapsIsCorrect) {
  const json r = eval("gemm", "tests/gpu/candidates/controls/gemm_cluster_persistent_cached_tma.cu");
  EXPECT_EQ(r["verdict"], "correct") << r["reason"] << " " << violations(r);
  EXPECT_EQ(r["target_executed"], true) << stage_of(r, "target_run").dump();
  EXPECT_GT(r["speedup_geomean"].get<double>(), 0.5);
}

}  // namespace
