// Feedback rendering per verdict on hand-made records shaped like the evaluator's.
#include <gtest/gtest.h>

#include "agent/feedback.h"
#include "problems/registry.h"

using namespace ptxbench;

namespace {

bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

const ProblemSpec& gemm() {
  static const ProblemSpec p = ProblemRegistry(std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems").load("gemm");
  return p;
}

EvaluationRecord base(Verdict v) {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.candidate_path = "/tmp/ws/candidates/" + std::string(64, 'a') + ".cu";
  r.candidate_sha256 = std::string(64, 'a');
  r.verdict = v;
  return r;
}

FeedbackContext ctx(int turn = 1, int turns = 8) { return {&gemm(), turn, turns, false, std::nullopt}; }

StageResult failed(const std::string& name, const std::string& verdict, const std::string& message, json detail) {
  detail["verdict"] = verdict;
  return {name, StageStatus::failed, 1.0, message, detail};
}

}  // namespace

TEST(Feedback, CompileErrorShowsTheFirstErrorsInCandidateCu) {
  auto r = base(Verdict::compile_error);
  json diags = json::array();
  for (int i = 1; i <= 7; ++i)
    diags.push_back({{"file", r.candidate_path},
                     {"line", 10 * i},
                     {"severity", "error"},
                     {"message", "identifier \"x" + std::to_string(i) + "\" is undefined"}});
  diags.push_back({{"file", r.candidate_path}, {"line", 3}, {"severity", "warning"}, {"message", "unused"}});
  diags.push_back({{"file", "/tmp/ws/builds/aaaa-sm_90a-1-0/keep/" + std::string(64, 'a') + ".ptx"},
                   {"line", 33},
                   {"severity", "error"},
                   {"message", "bad operand"}});
  r.add_stage(failed("build", "compile_error", "x", {{"diagnostics", diags}, {"log", "..."}}));
  const std::string f = render_feedback(r, ctx(1, 8));
  EXPECT_TRUE(has(f, "## Result of turn 2 of 8: COMPILE_ERROR")) << f;
  EXPECT_TRUE(has(f, "candidate.cu:10: error: identifier \"x1\" is undefined")) << f;
  EXPECT_TRUE(has(f, "candidate.cu:50: error")) << f;
  EXPECT_FALSE(has(f, "candidate.cu:60")) << "only the first 5 errors";
  EXPECT_TRUE(has(f, "(5 of 8)")) << f;
  EXPECT_FALSE(has(f, "/tmp/ws")) << "no temporary path reaches the model: " << f;
  EXPECT_FALSE(has(f, "warning")) << f;
  EXPECT_TRUE(has(f, "Reply with the complete improved file"));
}

TEST(Feedback, CompileErrorWithoutDiagnosticsShowsTheLogWithPathsMapped) {
  auto r = base(Verdict::compile_error);
  r.add_stage(failed("build", "compile_error", "nvcc failed",
                     {{"diagnostics", json::array()},
                      {"log", r.candidate_path + " is broken\n/usr/local/cuda/bin/../include/x.h: oops\n"}}));
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "candidate.cu is broken")) << f;
  EXPECT_TRUE(has(f, "x.h: oops")) << f;
  EXPECT_FALSE(has(f, "/usr/local")) << f;
}

TEST(Feedback, ForbiddenGivesTheReasonAndEveryFinding) {
  auto r = base(Verdict::forbidden);
  r.add_stage({"build", StageStatus::ok, 1, "built", json::object()});
  r.add_stage(failed("static", "forbidden", "links cuBLAS (libcublas.so.13) (+1 more)",
                     {{"forbidden", {"links cuBLAS (libcublas.so.13)", "calls dlopen"}}}));
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "FORBIDDEN"));
  EXPECT_TRUE(has(f, "Reason (static): links cuBLAS")) << f;
  EXPECT_TRUE(has(f, "- calls dlopen")) << f;
}

TEST(Feedback, RuntimeErrorShowsWhereAndTheProgramOutput) {
  auto r = base(Verdict::runtime_error);
  r.add_stage({"build", StageStatus::ok, 1, "built", json::object()});
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage(failed("sanitize", "runtime_error", "before the sanitizers, a plain call failed: cudaErrorIllegalAddress",
                     {{"output", "debug: tile 3\nCUDA error at k.cu:40\n"}}));
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "failed at run time"));
  EXPECT_TRUE(has(f, "cudaErrorIllegalAddress"));
  EXPECT_TRUE(has(f, "  debug: tile 3")) << f;
}

TEST(Feedback, SanitizerFindingsShowTheFirstReportLines) {
  auto r = base(Verdict::sanitizer_error);
  std::string report =
      "========= Invalid __global__ write of size 4 bytes\n=========     at k+0x90 in candidate.cu:55\n";
  for (int i = 0; i < 30; ++i) report += "=========     line " + std::to_string(i) + "\n";
  r.add_stage(
      failed("sanitize", "sanitizer_error", "memcheck: 2 error(s): Invalid __global__ write",
             {{"memcheck", {{"errors", 2}, {"report", report}}}, {"racecheck", {{"errors", 0}, {"report", ""}}}}));
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "memcheck (2 error(s))")) << f;
  EXPECT_TRUE(has(f, "Invalid __global__ write of size 4")) << f;
  EXPECT_FALSE(has(f, "line 29")) << "trimmed to the first lines";
  EXPECT_FALSE(has(f, "racecheck (")) << "a clean check is not listed";
}

TEST(Feedback, IncorrectSaysWhereAndByHowMuch) {
  auto r = base(Verdict::incorrect);
  json output = {{"output", "C"},
                 {"elements", 16384},
                 {"nonfinite", 0},
                 {"mismatches", 128},
                 {"max_abs_err", 3.5},
                 {"rel_l2_err", 0.2},
                 {"worst_err_over_tol", 41.0},
                 {"tolerance", {{"rtol", 0.02}, {"max_rel_l2", 0.008}}},
                 {"worst", {{"index", 300}, {"row", 2}, {"col", 44}, {"got", 1.5}, {"expected", -2.0}}}};
  json failure = {{"shape", {{"M", 128}, {"N", 128}, {"K", 64}}},
                  {"hidden", true},
                  {"seed_index", 0},
                  {"summary", "C: 128 of 16384 wrong"},
                  {"detail", {{"outputs", {output}}}}};
  r.add_stage(failed("correctness", "incorrect", "wrong on M=128 N=128 K=64 (hidden shape): C: 128 of 16384",
                     {{"failures", {failure}}, {"checks", 3}}));
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "On M=128 N=128 K=64 (a shape not listed in the problem)")) << f;
  EXPECT_TRUE(has(f, "C: 128 of 16384 elements out of tolerance")) << f;
  EXPECT_TRUE(has(f, "worst at row 2 col 44 index 300: got 1.5, expected -2")) << f;
  EXPECT_TRUE(has(f, "relative L2 error 0.2 (limit 0.008)")) << f;
}

TEST(Feedback, UncountedCallsSayWhyNoTargetRan) {
  auto r = base(Verdict::correct);
  r.add_stage({"build", StageStatus::ok, 1, "built", json::object()});
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"target_run",
               StageStatus::ok,
               0,
               "target families did NOT execute (not counted: ...)",
               {{"counted", false}, {"why", "the candidate's SASS (1 kernels) holds no target"}}});
  r.target_static = false;
  r.target_executed = false;
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(
      has(f, "- executed at run time: none (calls not counted: the candidate's SASS (1 kernels) holds no target)"))
      << f;
}

TEST(Feedback, CorrectNamesExecutedTargetGroupsAndSpeedPerShape) {
  auto r = base(Verdict::correct);
  r.add_stage({"build", StageStatus::ok, 1, "built", json::object()});
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"correctness", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"target_run", StageStatus::ok, 1, "target families executed", json::object()});
  r.add_stage({"timing", StageStatus::ok, 1, "ok", {{"baseline", {{"library", "cuBLASLt"}}}}});
  r.static_families = {{"HGMMA", 48}, {"UTMALDG", 4}};
  r.executed_families = {{"HGMMA", 12288}};
  r.target_static = true;
  r.target_executed = false;
  ShapeTiming t;
  t.shape = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  t.median_ms = 0.2;
  t.baseline_median_ms = 0.15;
  t.speedup = 0.75;
  r.timing.push_back(t);
  r.speedup_geomean = 0.75;
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "in the SASS of the built file: *GMMA yes (HGMMA 48); UTMALDG|UTMASTG|UTMAREDG yes (UTMALDG 4)"))
      << f;
  EXPECT_TRUE(has(f, "executed at run time: *GMMA yes (HGMMA 12288); UTMALDG|UTMASTG|UTMAREDG NO")) << f;
  EXPECT_TRUE(has(f, "does not use every target group")) << f;
  EXPECT_TRUE(has(f, "Speed against cuBLASLt")) << f;
  EXPECT_TRUE(has(f, "M=4096 N=4096 K=4096: 0.2000 ms vs 0.1500 ms -> 0.750x")) << f;
  EXPECT_TRUE(has(f, "Geometric mean speedup: 0.750x")) << f;
}

// Issue 30: targets that executed without doing the work are told apart from targets that did it.
TEST(Feedback, TargetsThatRanButDidNotDoTheWorkAreSaidSoWithTheShares) {
  auto r = base(Verdict::correct);
  r.add_stage({"build", StageStatus::ok, 1, "built", json::object()});
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"correctness", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"target_run", StageStatus::ok, 1,
               "target families executed but did NOT do the work: the warpgroup MMAs did 0.0% of the FLOPs",
               json::object()});
  r.static_families = {{"HGMMA", 1}, {"UTMALDG", 1}};
  r.executed_families = {{"HGMMA", 4}, {"UTMALDG", 1}};
  r.target_static = true;
  r.target_seen = true;
  r.target_executed = false;
  r.tensor_flop_share = 0.0000005;
  r.tma_byte_share = 0.00009;
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "executed at run time: *GMMA yes (HGMMA 4); UTMALDG|UTMASTG|UTMAREDG yes (UTMALDG 1)")) << f;
  EXPECT_TRUE(has(f, "share of the FLOPs done by warpgroup MMA: 0%")) << f;
  EXPECT_TRUE(has(f, "bytes moved by TMA copies: 9e-05x the operands' bytes")) << f;
  EXPECT_TRUE(has(f, "the target instructions ran but did not do the work")) << f;
  EXPECT_FALSE(has(f, "and the target instructions did the work")) << f;
}

// Issue 45: the timed calls' allowlist is told too: the other instructions' share and the TMA's
// share of the bytes read, each with its bound.
TEST(Feedback, TheTimedCallsOtherMathAndTmaLoadSharesAreToldWithTheirBounds) {
  auto r = base(Verdict::correct);
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"correctness", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"target_run",
               StageStatus::ok,
               1,
               "target families executed on the checked calls but did NOT do the work in the timed calls: ...",
               {{"timed_work", {{"counted", true}, {"other_math_share", 1.5}, {"tma_load_share", 0.03}}}}});
  r.target_seen = true;
  r.target_executed = false;
  r.tensor_flop_share = 1.0;
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f,
                  "FLOPs other instructions could have done (older MMAs such as mma.sync, the SIMT pipes, the rest): "
                  "up to 150% (at most 15% allowed)"))
      << f;
  EXPECT_TRUE(has(f, "share of the global bytes read that TMA brought: 3%")) << f;
}

TEST(Feedback, UnknownExecutionIsSaidToBeUnknown) {
  auto r = base(Verdict::correct);
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage(failed("target_run", "infra_error", "ncu: no CSV in the report", json::object()));
  r.target_executed = std::nullopt;
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "executed at run time: unknown (the instruction counter failed on the harness side: ncu: no CSV"))
      << f;
}

TEST(Feedback, NotRunSaysNoGpuStageRanAndWhy) {
  auto r = base(Verdict::not_run);
  r.add_stage({"build", StageStatus::ok, 1, "built", json::object()});
  r.add_stage({"static", StageStatus::ok, 1, "ok", json::object()});
  r.add_stage({"correctness", StageStatus::skipped, 0,
               "the GPU (NVIDIA H200, compute capability 9.0) cannot run sm_100a code: static checks only",
               json::object()});
  r.add_stage({"target_run", StageStatus::skipped, 0, "the GPU ... cannot run sm_100a code", json::object()});
  const std::string f = render_feedback(r, ctx());
  EXPECT_TRUE(has(f, "No GPU stage ran: the GPU (NVIDIA H200, compute capability 9.0) cannot run sm_100a code")) << f;
  EXPECT_TRUE(has(f, "not measured")) << f;
}

TEST(Feedback, MalformedDetailsDoNotCrash) {
  for (Verdict v : {Verdict::compile_error, Verdict::forbidden, Verdict::runtime_error, Verdict::sanitizer_error,
                    Verdict::incorrect, Verdict::correct, Verdict::not_run, Verdict::infra_error}) {
    auto r = base(v);
    json odd = {{"diagnostics", "not an array"},
                {"failures", {1, "x", nullptr}},
                {"forbidden", 7},
                {"memcheck", {{"errors", "two"}}},
                {"output", 12},
                {"baseline", "cublas"}};
    for (const char* s : {"build", "static", "sanitize", "correctness", "target_run", "timing"})
      r.add_stage(failed(s, std::string(to_string(v)), "m", odd));
    EXPECT_NO_THROW(render_feedback(r, {nullptr, 0, 0, false, std::nullopt})) << to_string(v);
    EXPECT_NO_THROW(render_feedback(base(v), ctx())) << to_string(v) << " with no stages";
  }
}

TEST(Feedback, ReusedJudgmentIsSaid) {
  auto r = base(Verdict::not_run);
  FeedbackContext c = ctx(3, 8);
  c.reused = true;
  c.reused_from_turn = 1;
  EXPECT_TRUE(has(render_feedback(r, c), "identical to the one of turn 2"));
  c.reused_from_turn.reset();
  EXPECT_TRUE(has(render_feedback(r, c), "identical to one already judged in this run"));
}

TEST(Feedback, LastTurnHasNoRequestForAnotherReply) {
  EXPECT_FALSE(has(render_feedback(base(Verdict::not_run), ctx(7, 8)), "Reply with"));
}

TEST(Feedback, NoKernelStates) {
  EXPECT_TRUE(has(render_no_kernel_feedback("no_code", "ok", "", "no code block in the reply", ctx()),
                  "no C/C++/CUDA code block"));
  EXPECT_TRUE(
      has(render_no_kernel_feedback("no_code", "truncated", "", "x", ctx()), "cut off at the output token limit"));
  EXPECT_TRUE(has(render_no_kernel_feedback("refused", "refused", "content filter", "", ctx()),
                  "refused or filtered by the provider: content filter"));
  EXPECT_TRUE(has(render_no_kernel_feedback("reasoning_only", "reasoning_only", "", "", ctx()), "budget ran out"));
  EXPECT_TRUE(has(render_no_kernel_feedback("request_too_large", "request_too_large", "413", "", ctx()), "too large"));
  EXPECT_TRUE(has(render_no_kernel_feedback("provider_error", "provider_error", "bad request", "", ctx()),
                  "error: bad request"));
}

TEST(Feedback, OneLineSummary) {
  EXPECT_EQ(one_line_summary(0, "compile_error", std::nullopt, std::nullopt), "turn 1: compile_error");
  EXPECT_EQ(one_line_summary(2, "correct", true, 0.8421), "turn 3: correct, targets executed, 0.842x the library");
  EXPECT_EQ(one_line_summary(2, "correct", std::nullopt, std::nullopt), "turn 3: correct, targets unknown");
}
