// Submissions checked field by field: each error says where (a JSON path) and what; a batch's keys;
// the fingerprint that tells a retry from a different candidate under the same key.
#include <gtest/gtest.h>

#include "api/submission.h"

using namespace ptxbench;
using namespace ptxbench::api;

namespace {

ServerFacts facts() { return {"sm_90a", "cuda", {"gemm", "mha_fwd"}}; }

json candidate(const std::string& key, const std::string& source = "__global__ void k() {}") {
  return {{"key", key}, {"problem", "gemm"}, {"source", source}};
}

ParsedSubmissions parse(const json& body, SubmissionLimits limits = {}) {
  return parse_submissions(body.dump(), facts(), limits);
}

// "where: what" of every error, for readable failures.
std::string listed(const ParsedSubmissions& p) {
  std::string out;
  for (const auto& e : p.errors) out += e.where + ": " + e.what + "\n";
  return out;
}

bool has_error(const ParsedSubmissions& p, const std::string& where, const std::string& part) {
  for (const auto& e : p.errors)
    if (e.where == where && e.what.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(Submission, OneCandidateTakesTheServersLanguageAndArchByDefault) {
  auto p = parse(candidate("k1"));
  ASSERT_TRUE(p.errors.empty()) << listed(p);
  ASSERT_EQ(p.candidates.size(), 1u);
  EXPECT_FALSE(p.batch);
  EXPECT_EQ(p.candidates[0].key, "k1");
  EXPECT_EQ(p.candidates[0].language, "cuda");
  EXPECT_EQ(p.candidates[0].arch, "sm_90a");
  EXPECT_EQ(p.candidates[0].fingerprint.size(), 64u);
}

TEST(Submission, ABatchNamesEachBadFieldByItsPath) {
  json bad_arch = candidate("k2");
  bad_arch["arch"] = "sm_100a";
  json body = {
      {"candidates",
       {candidate("k1"),
        {{"key", "k 3"}, {"problem", "nope"}, {"source", 7}},
        bad_arch,
        json{{"key", "k4"}, {"problem", "gemm"}, {"source", "x"}, {"options", {{"no_timing", true}}}, {"extra", 1}}}}};
  auto p = parse(body);
  EXPECT_TRUE(p.batch);
  EXPECT_TRUE(p.candidates.empty()) << "nothing of an invalid request is taken";
  EXPECT_TRUE(has_error(p, "candidates[1].key", "characters of")) << listed(p);
  EXPECT_TRUE(has_error(p, "candidates[1].problem", "unknown problem 'nope'")) << listed(p);
  EXPECT_TRUE(has_error(p, "candidates[1].problem", "gemm, mha_fwd")) << listed(p);
  EXPECT_TRUE(has_error(p, "candidates[1].source", "expected a string, got number")) << listed(p);
  EXPECT_TRUE(has_error(p, "candidates[2].arch", "judges for sm_90a")) << listed(p);
  EXPECT_TRUE(has_error(p, "candidates[3].options.no_timing", "not settable per candidate")) << listed(p);
  EXPECT_TRUE(has_error(p, "candidates[3].extra", "unknown field")) << listed(p);
  EXPECT_FALSE(has_error(p, "candidates[0].key", "")) << listed(p);
}

TEST(Submission, MissingFieldsNotJsonAndLimitsAreErrors) {
  auto missing = parse(json{{"problem", "gemm"}});
  EXPECT_TRUE(has_error(missing, "key", "missing")) << listed(missing);
  EXPECT_TRUE(has_error(missing, "source", "missing")) << listed(missing);
  auto not_json = parse_submissions("{", facts(), {});
  EXPECT_TRUE(has_error(not_json, "", "not JSON")) << listed(not_json);
  SubmissionLimits small;
  small.max_batch = 2, small.max_source_bytes = 4;
  auto too_many = parse({{"candidates", {candidate("a"), candidate("b"), candidate("c")}}}, small);
  EXPECT_TRUE(has_error(too_many, "candidates", "over the limit of 2")) << listed(too_many);
  auto too_long = parse(candidate("a", "12345"), small);
  EXPECT_TRUE(has_error(too_long, "source", "5 bytes, over the limit of 4")) << listed(too_long);
  auto empty = parse({{"candidates", json::array()}});
  EXPECT_TRUE(has_error(empty, "candidates", "empty")) << listed(empty);
  auto wrong_language = parse(json{{"key", "a"}, {"problem", "gemm"}, {"source", "x"}, {"language", "triton"}});
  EXPECT_TRUE(has_error(wrong_language, "language", "judges 'cuda'")) << listed(wrong_language);
}

TEST(Submission, TheSameKeyTwiceInABatchIsOneCandidateOrAnError) {
  auto same = parse({{"candidates", {candidate("a"), candidate("a")}}});
  ASSERT_TRUE(same.errors.empty()) << listed(same);
  EXPECT_EQ(same.candidates.size(), 1u);
  auto different = parse({{"candidates", {candidate("a"), candidate("a", "other")}}});
  EXPECT_TRUE(has_error(different, "candidates[1].key", "also the key of candidates[0]")) << listed(different);
}

TEST(Submission, TheFingerprintCoversTheCandidateButNotTheKey) {
  const auto fp = [](const json& c) { return parse(c).candidates.at(0).fingerprint; };
  EXPECT_EQ(fp(candidate("a")), fp(candidate("b")));
  EXPECT_NE(fp(candidate("a")), fp(candidate("a", "other source")));
  json with_meta = candidate("a");
  with_meta["metadata"] = {{"step", 3}};
  EXPECT_NE(fp(candidate("a")), fp(with_meta));
}

TEST(Submission, KeysMapToJobIdsOfTheirOwn) {
  EXPECT_EQ(job_id_for_key("run1:step2.3"), "api/run1:step2.3");
  EXPECT_EQ(key_of_job_id("api/run1:step2.3"), "run1:step2.3");
  EXPECT_EQ(key_of_job_id("submit-2026/0/abc"), "");
  EXPECT_TRUE(valid_key("A-z_0.9:x", 128));
  EXPECT_FALSE(valid_key("", 128));
  EXPECT_FALSE(valid_key("a/b", 128));
  EXPECT_FALSE(valid_key(std::string(129, 'a'), 128));
}
