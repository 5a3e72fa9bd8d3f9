#include <gtest/gtest.h>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/record.h"
#include "judge/stages/verdict_decision.h"

using namespace ptxbench;

TEST(Verdict, NamesRoundTripAndExitCodesAreDistinct) {
  std::set<int> codes;
  for (auto v : {Verdict::compile_error, Verdict::forbidden, Verdict::runtime_error, Verdict::sanitizer_error,
                 Verdict::incorrect, Verdict::correct, Verdict::infra_error, Verdict::not_run}) {
    EXPECT_EQ(verdict_from_string(to_string(v)), v);
    EXPECT_TRUE(codes.insert(exit_code_for(v)).second) << to_string(v);
  }
  EXPECT_EQ(exit_code_for(Verdict::correct), 0);
  EXPECT_FALSE(verdict_from_string("kinda_correct").has_value());
  EXPECT_FALSE(counts_against_candidate(Verdict::infra_error));
  EXPECT_TRUE(counts_against_candidate(Verdict::incorrect));
}

static EvaluationRecord sample_record() {
  EvaluationRecord r;
  r.problem = "gemm";
  r.arch = "sm_90a";
  r.gpu = "NVIDIA H200";
  r.candidate_path = "x.cu";
  r.candidate_sha256 = std::string(64, 'a');
  r.created_at = "2026-11-29T12:00:00Z";
  r.verdict = Verdict::correct;
  r.reason = "ok";
  r.target_static = true;
  r.target_executed = true;
  r.static_families = {{"HGMMA", 4}, {"UTMALDG", 2}};
  r.executed_families = {{"HGMMA", 123456}};
  r.add_stage({"build", StageStatus::ok, 1.5, "built", {{"command", "nvcc ..."}}});
  r.add_stage({"timing", StageStatus::skipped, 0, "--no-timing", json::object()});
  ShapeTiming t;
  t.shape = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  t.median_ms = 0.2, t.p10_ms = 0.19, t.p90_ms = 0.21, t.spread = 0.1, t.samples = 20;
  t.baseline_median_ms = 0.18, t.speedup = 0.9, t.tflops = 687, t.baseline_tflops = 763;
  r.timing.push_back(t);
  r.speedup_geomean = 0.9;
  return r;
}

TEST(Record, JsonRoundTripKeepsEveryField) {
  auto r = sample_record();
  json j = to_json(r);
  auto back = record_from_json(json::parse(j.dump()));
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.timing.at(0).shape.at("N"), 4096);
  EXPECT_EQ(back.stage("build")->detail["command"], "nvcc ...");
}

TEST(Record, MalformedJsonIsAnInputErrorNamingTheProblem) {
  json j = to_json(sample_record());
  j["verdict"] = "great";
  EXPECT_THROW(record_from_json(j), InputError);
  j = to_json(sample_record());
  j.erase("stages");
  try {
    record_from_json(j);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("stages"), std::string::npos) << e.what();
  }
}

// Found by the CI fuzz run: a float past int's range in an integer field was converted without a
// check (undefined behaviour); every integer field must be an in-range integer literal.
TEST(Record, IntegerFieldsRejectFloatsAndOutOfRangeNumbersByName) {
  auto expect_error_naming = [](json j, const std::string& field) {
    try {
      record_from_json(j);
      FAIL() << "expected InputError for " << field;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  json j = to_json(sample_record());
  j["schema"] = json::parse("5.5e92");
  expect_error_naming(j, "record.schema");
  j = to_json(sample_record());
  j["schema"] = json::parse("18446744073709551615");
  expect_error_naming(j, "record.schema");
  j = to_json(sample_record());
  j["schema"] = 3.0;
  expect_error_naming(j, "record.schema");
  j = to_json(sample_record());
  j["timing"][0]["samples"] = -1e300;
  expect_error_naming(j, "record.timing.samples");
  j = to_json(sample_record());
  j["timing"][0]["shape"]["M"] = 1e30;
  expect_error_naming(j, "record.timing.shape.M");
  j = to_json(sample_record());
  j["executed_families"]["HGMMA"] = true;
  expect_error_naming(j, "record.executed_families.HGMMA");
  j = to_json(sample_record());
  j["executed_families"]["HGMMA"] = json::parse("9223372036854775807");
  EXPECT_EQ(record_from_json(j).executed_families.at("HGMMA"), 9223372036854775807LL);
}

TEST(DecideVerdict, FirstFailedStageDecides) {
  EvaluationRecord r;
  r.add_stage({"build", StageStatus::ok, 0, "", json::object()});
  r.add_stage({"static", StageStatus::ok, 0, "", json::object()});
  r.add_stage({"sanitize", StageStatus::failed, 0, "memcheck: 1 error", {{"verdict", "sanitizer_error"}}});
  r.add_stage({"correctness", StageStatus::failed, 0, "wrong", {{"verdict", "incorrect"}}});
  std::string why;
  EXPECT_EQ(decide_verdict(r, &why), Verdict::sanitizer_error);
  EXPECT_NE(why.find("memcheck"), std::string::npos);
}

TEST(DecideVerdict, SkippedGpuStagesMeanNotRun) {
  EvaluationRecord r;
  r.add_stage({"build", StageStatus::ok, 0, "", json::object()});
  r.add_stage({"static", StageStatus::ok, 0, "", json::object()});
  r.add_stage({"correctness", StageStatus::skipped, 0, "no GPU", json::object()});
  std::string why;
  EXPECT_EQ(decide_verdict(r, &why), Verdict::not_run);
  EXPECT_NE(why.find("no GPU"), std::string::npos);
}

TEST(DecideVerdict, AllStagesOkIsCorrectAndUnknownVerdictIsInfra) {
  EvaluationRecord r;
  r.add_stage({"build", StageStatus::ok, 0, "", json::object()});
  r.add_stage({"correctness", StageStatus::ok, 0, "", json::object()});
  EXPECT_EQ(decide_verdict(r, nullptr), Verdict::correct);
  r.add_stage({"timing", StageStatus::failed, 0, "?", {{"verdict", "bogus"}}});
  EXPECT_EQ(decide_verdict(r, nullptr), Verdict::infra_error);
}

TEST(Hash, Sha256OfKnownText) {
  EXPECT_EQ(content_sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
