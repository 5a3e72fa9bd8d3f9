// Error classes come from the stored evaluation's structured fields: one record per class, made
// the way the pipeline's stages write them.
#include <gtest/gtest.h>

#include "fixit_core/error_class.h"
#include "problems/registry.h"

using namespace ptxbench;
using namespace ptxbench::fixit;

namespace {

std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }

EvaluationRecord failed(Verdict v, const std::string& stage, json detail) {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.verdict = v;
  r.add_stage({"build", v == Verdict::compile_error ? StageStatus::failed : StageStatus::ok, 1, "", json::object()});
  detail["verdict"] = std::string(to_string(v));
  if (stage == "build") r.stages[0].detail = detail;
  else r.add_stage({stage, StageStatus::failed, 1, "msg", detail});
  return r;
}

class Classes : public ::testing::Test {
 protected:
  void SetUp() override { gemm_ = ProblemRegistry(repo() / "problems").load("gemm"); }
  ErrorClass of(const EvaluationRecord& r, double slow = 0) {
    auto c = classify(r, &gemm_, {slow});
    EXPECT_TRUE(c.has_value());
    return c.value_or(ErrorClass{});
  }
  ProblemSpec gemm_;
};

TEST_F(Classes, CompileErrorIsTheFirstErrorsToolAndTemplate) {
  const auto r =
      failed(Verdict::compile_error, "build",
             {{"diagnostics", json::array({{{"severity", "warning"}, {"tool", "cudafe"}, {"message", "unused"}},
                                           {{"severity", "error"},
                                            {"tool", "cudafe"},
                                            {"line", 12},
                                            {"message", "identifier \"wgmma_fence\" is undefined"}}})}});
  const ErrorClass c = of(r);
  EXPECT_EQ(c.name, "compile_error");
  EXPECT_EQ(c.signature, "compile_error/cudafe/identifier \"_\" is undefined");
  EXPECT_EQ(c.detail["line"], 12);
}

TEST_F(Classes, TheTemplateHidesNamesAndNumbers) {
  EXPECT_EQ(message_template("Arguments mismatch for instruction 'wgmma'"), "Arguments mismatch for instruction \"_\"");
  EXPECT_EQ(message_template("too many resources requested for launch: 0x1f  registers 255"),
            "too many resources requested for launch: N registers N");
  EXPECT_EQ(message_template("`foo' undeclared  (first use)"), "\"_\" undeclared (first use)");
  EXPECT_EQ(message_template("sm_90a and sm_100a"), "sm_N and sm_N");
}

TEST_F(Classes, ForbiddenNamesTheStageAndItsRule) {
  EXPECT_EQ(
      of(failed(Verdict::forbidden, "static", {{"findings", json::array({{{"rule", "import"}, {"message", "x"}}})}}))
          .signature,
      "forbidden/static/import");
  EXPECT_EQ(of(failed(Verdict::forbidden, "integrity",
                      {{"violations", json::array({{{"rule", "foreign_stream"}, {"message", "x"}}})}}))
                .signature,
            "forbidden/integrity/foreign_stream");
  EXPECT_EQ(of(failed(Verdict::forbidden, "stream_discipline", {{"kind", "sandbox_syscall"}})).signature,
            "forbidden/stream_discipline/sandbox_syscall");
  EXPECT_EQ(of(failed(Verdict::forbidden, "static", {})).signature, "forbidden/static/unrecorded");
}

TEST_F(Classes, RuntimeAndSanitizerErrorsSayHowTheyEnded) {
  EXPECT_EQ(of(failed(Verdict::runtime_error, "smoke", {{"kind", "crash"}, {"signal", 11}})).signature,
            "runtime_error/smoke/crash");
  EXPECT_EQ(of(failed(Verdict::runtime_error, "correctness", {})).signature, "runtime_error/correctness/stage_failure");
  EXPECT_EQ(
      of(failed(Verdict::sanitizer_error, "sanitize",
                {{"tool", "racecheck"}, {"first_finding", "Error: Race reported between Write access at 0x1a0 in k"}}))
          .signature,
      "sanitizer_error/racecheck/Error: Race reported between Write access at N in k");
  // An older record without `tool`: the check that counted errors.
  EXPECT_EQ(
      of(failed(Verdict::sanitizer_error, "sanitize", {{"memcheck", {{"errors", 0}}}, {"synccheck", {{"errors", 2}}}}))
          .detail["tool"],
      "synccheck");
}

TEST_F(Classes, IncorrectNamesTheOutputWhyAndTheShapeKind) {
  json fail = {{"shape", {{"M", 128}, {"N", 256}, {"K", 64}}},
               {"hidden", true},
               {"detail",
                {{"outputs", json::array({{{"output", "C"}, {"mismatches", 0}, {"nonfinite", 0}},
                                          {{"output", "LSE"}, {"mismatches", 0}, {"nonfinite", 7}}})}}}};
  const ErrorClass c = of(failed(Verdict::incorrect, "correctness", {{"failures", json::array({fail})}}));
  EXPECT_EQ(c.signature, "incorrect/correctness/LSE/nonfinite/hidden");
  EXPECT_EQ(c.detail["shape"], "M=128 N=256 K=64");  // as the worker wrote it (the problem's dim order)
  fail["detail"] = {{"modified_inputs", "A"}};
  fail["hidden"] = false;
  EXPECT_EQ(of(failed(Verdict::incorrect, "correctness", {{"failures", json::array({fail})}})).signature,
            "incorrect/correctness/A/modified_inputs/listed");
  EXPECT_EQ(of(failed(Verdict::incorrect, "timing", {})).signature, "incorrect/timing/unknown/timed_check/listed");
}

TEST_F(Classes, CorrectWithoutTargetsNamesTheGroupsThatDidNotRun) {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.verdict = Verdict::correct;
  r.target_executed = false;
  r.executed_families = {{"HGMMA", 40}};
  const ErrorClass c = of(r);
  EXPECT_EQ(c.name, "correct_no_target");
  EXPECT_EQ(c.signature, "correct_no_target/UTMALDG|UTMASTG|UTMAREDG");
  // Every group ran but short of the problem's work (a token wgmma and TMA beside SIMT math).
  r.executed_families = {{"HGMMA", 1}, {"UTMALDG", 1}};
  r.target_seen = true;
  r.tensor_flop_share = 4.8e-7;
  EXPECT_EQ(of(r).signature, "correct_no_target/short_of_the_work");
  EXPECT_DOUBLE_EQ(of(r).detail["tensor_flop_share"].get<double>(), 4.8e-7);
}

TEST_F(Classes, TargetCorrectIsNoFailureUnlessSlow) {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.verdict = Verdict::correct;
  r.target_executed = true;
  r.speedup_geomean = 0.3;
  EXPECT_FALSE(classify(r, &gemm_, {0}).has_value());
  EXPECT_FALSE(classify(r, &gemm_, {0.25}).has_value());
  const ErrorClass c = of(r, 0.5);
  EXPECT_EQ(c.signature, "correct_slow/0.25-0.5x");
  r.target_executed.reset();  // the counter failed: says nothing
  EXPECT_FALSE(classify(r, &gemm_, {0.5}).has_value());
  r.verdict = Verdict::infra_error;
  EXPECT_FALSE(classify(r, &gemm_, {0.5}).has_value());
}

}  // namespace
