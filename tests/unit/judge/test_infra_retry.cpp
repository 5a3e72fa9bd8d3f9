// The sequential path's re-run of an infra_error (judge/infra_retry.h): judged again up to the
// bound, the earlier reasons kept in the last record, and a real verdict never run again.
#include <gtest/gtest.h>

#include "judge/infra_retry.h"

using namespace ptxbench;

namespace {

EvaluationRecord with(Verdict v, const std::string& reason) {
  EvaluationRecord r;
  r.verdict = v;
  r.reason = reason;
  return r;
}

}  // namespace

TEST(InfraRetry, AnInfraErrorRunsAgainAndTheEarlierReasonsStayInTheRecord) {
  int runs = 0;
  std::vector<int> told;
  const EvaluationRecord r = evaluate_with_infra_retries(
      [&] {
        return ++runs < 3 ? with(Verdict::infra_error, "drift " + std::to_string(runs)) : with(Verdict::correct, "");
      },
      3, [&](int attempt, const std::string&) { told.push_back(attempt); });
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(r.verdict, Verdict::correct);
  EXPECT_EQ(told, (std::vector<int>{2, 3}));
  EXPECT_EQ(r.environment.at("earlier_infra_errors"), json({"drift 1", "drift 2"}));
}

TEST(InfraRetry, TheBoundEndsItAsInfraError) {
  int runs = 0;
  const EvaluationRecord r = evaluate_with_infra_retries(
      [&] {
        ++runs;
        return with(Verdict::infra_error, "probe");
      },
      2);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(r.verdict, Verdict::infra_error);
  EXPECT_EQ(r.environment.at("earlier_infra_errors").size(), 1u);
}

TEST(InfraRetry, ACandidatesOwnVerdictIsNeverRunAgain) {
  for (Verdict v : {Verdict::incorrect, Verdict::forbidden, Verdict::runtime_error, Verdict::correct}) {
    int runs = 0;
    const EvaluationRecord r = evaluate_with_infra_retries(
        [&] {
          ++runs;
          return with(v, "x");
        },
        3);
    EXPECT_EQ(runs, 1) << to_string(v);
    EXPECT_FALSE(r.environment.contains("earlier_infra_errors"));
  }
}
