// The eval job split for GPU sharing: the shared part has no timed shapes, the timed part nothing
// but them (and the counter for its secretly counted sample); the timed part runs only when the
// shared part passed.
#include <gtest/gtest.h>

#include "judge/stages/timed_split.h"
#include "unit/judge/worker_run_with.h"

using namespace ptxbench;

namespace {

WorkerJob eval_job() {
  WorkerJob j;
  j.mode = "eval";
  j.seed = 42;
  j.tolerances = {{"C", {{"rtol", 0.01}}}};
  j.correctness = {CorrectnessItem{{{"M", 128}}, 3}};
  j.count = std::vector<ShapeWork>{{{{"M", 128}}, 1.0}};
  j.timing = std::vector<ShapeWork>{{{{"M", 4096}}, 2.0}};
  j.timing_config = json{{"max_seconds", 4}};
  return j;
}

using test::run_with;

}  // namespace

TEST(TimedSplit, TheSharedPartTimesNothingAndKeepsEverythingElse) {
  const json s = to_json(shared_part_of(eval_job()));
  const json whole = to_json(eval_job());
  EXPECT_FALSE(s.contains("timing"));
  EXPECT_FALSE(s.contains("timing_config"));
  EXPECT_EQ(s.at("correctness"), whole.at("correctness"));
  EXPECT_EQ(s.at("count"), whole.at("count"));
  EXPECT_EQ(s.at("seed"), 42);
}

TEST(TimedSplit, TheTimedPartIsOnlyTheTimedShapes) {
  const json t = to_json(timed_part_of(eval_job()));
  const json whole = to_json(eval_job());
  EXPECT_TRUE(t.at("correctness").empty());
  EXPECT_FALSE(t.at("stream_discipline").get<bool>());
  EXPECT_FALSE(t.at("counted_calls").get<bool>());
  EXPECT_TRUE(t.contains("count"));  // the counter stays for the secretly counted timed sample
  EXPECT_EQ(t.at("timing"), whole.at("timing"));
  EXPECT_EQ(t.at("tolerances"), whole.at("tolerances"));
}

TEST(TimedSplit, WithoutTheCountedSampleTheTimedPartCountsNothing) {
  const json t = to_json(timed_part_of(eval_job(), false));
  EXPECT_FALSE(t.contains("count"));  // no counter in the worker, so no counted timed sample
  EXPECT_EQ(t.at("timing"), to_json(eval_job()).at("timing"));
  EXPECT_EQ(expected_stages(t), (std::vector<std::string>{"correctness", "integrity", "timing"}));
  EXPECT_EQ(expected_stages(to_json(timed_part_of(eval_job()))),
            (std::vector<std::string>{"correctness", "integrity", "target_run", "timing"}));
}

TEST(TimedSplit, TheCountedCallsKernelsGoToTheTimedPart) {
  WorkerRun r;
  r.events = {{{"type", "target_counts"},
               {"when", "checked call"},
               {"shape", {{"M", 128}}},
               {"functions", json::array({{{"function", "k1"}, {"pcs", json::array()}},
                                          {{"function", "k2"}, {"pcs", json::array()}}})}},
              {{"type", "target_counts"},
               {"when", "timed sample 3"},
               {"shape", {{"M", 4096}}},
               {"functions", json::array({{{"function", "k3"}}})}}};
  const std::vector<CountedKernels> k = counted_kernels_of(r);
  ASSERT_EQ(k.size(), 1u) << "a counted timed sample is the timed worker's own";
  EXPECT_EQ(k[0].shape, (json{{"M", 128}}));
  EXPECT_EQ(k[0].kernels, (std::vector<std::string>{"k1", "k2"}));
}

TEST(TimedSplit, TimingRunsOnlyAfterASharedPartThatPassed) {
  const json ok = {{"status", "ok"}};
  auto named = [](const char* n, json s) {
    s["name"] = n;
    return s;
  };
  EXPECT_TRUE(shared_part_passed(run_with(
      {named("integrity", ok), named("stream_discipline", ok), named("correctness", ok), named("target_run", ok)})));
  EXPECT_TRUE(shared_part_passed(
      run_with({named("correctness", ok), named("target_run", {{"status", "failed"}, {"tool_failure", true}})})))
      << "a counting tool failure is not the candidate's";
  EXPECT_FALSE(shared_part_passed(run_with({named("correctness", {{"status", "failed"}})})));
  EXPECT_FALSE(shared_part_passed(run_with({named("integrity", {{"status", "failed"}}), named("correctness", ok)})));
  EXPECT_FALSE(shared_part_passed(run_with({named("correctness", ok), named("target_run", {{"status", "failed"}})})));
  EXPECT_FALSE(shared_part_passed(run_with({named("correctness", ok)}, false))) << "the worker did not finish";
  EXPECT_FALSE(shared_part_passed(run_with({}))) << "no correctness stage";
}
